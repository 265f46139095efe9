// The icon svc shows MCP clients (2025-11-25 and later: `icons` on the server's implementation and
// on each tool): the console's favicon, inline as a data: URI so no client has to fetch it from a
// server it may not reach, and so it works over stdio too.

const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f6feb"/>' +
  '<circle cx="10" cy="16" r="4" fill="#fff"/><circle cx="22" cy="10" r="3" fill="#fff"/><circle cx="22" cy="22" r="3" fill="#fff"/>' +
  '<path d="M10 16L22 10M10 16L22 22" stroke="#fff" stroke-width="2"/></svg>';

export interface Icon {
  src: string;
  mimeType: string;
  sizes: string[];
}

export const SVC_ICON: Icon = {
  src: `data:image/svg+xml;base64,${Buffer.from(SVG).toString('base64')}`,
  mimeType: 'image/svg+xml',
  sizes: ['any'],
};

/** The server's and every tool's icons (one for now: the tools are all svc's). */
export const TOOL_ICONS: Icon[] = [SVC_ICON];
