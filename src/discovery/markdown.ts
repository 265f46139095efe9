// Markdown and shell helpers for the documents. Names come from config and the API, so they are
// flattened to one line and escaped; ids and URLs are checked before they go into commands.

/** Text safe inside a Markdown line or table cell: one line, Markdown punctuation escaped. */
export function mdText(s: string): string {
  return s
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/[\\`*_{}[\]<>()#+!|~]/g, '\\$&')
    .trim();
}

const SHELL_SAFE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** An id for a shell command or JSON example, or the placeholder when it is not a plain id. */
export function safeId(id: string | undefined, placeholder: string): string {
  return id !== undefined && SHELL_SAFE.test(id) ? id : placeholder;
}

/** Inline code of a plain id (ids cannot hold backticks; anything else is escaped text). */
export function code(id: string): string {
  return SHELL_SAFE.test(id) ? `\`${id}\`` : mdText(id);
}

/** A fenced block. */
export function fence(lang: string, body: string): string {
  return `\`\`\`${lang}\n${body.replace(/\n+$/, '')}\n\`\`\``;
}

/** Joins sections with blank lines and ends with one newline. */
export function doc(...sections: (string | false | undefined)[]): string {
  return `${sections.filter((s): s is string => typeof s === 'string' && s !== '').join('\n\n')}\n`;
}
