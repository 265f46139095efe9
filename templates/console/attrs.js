// Plain attributes (ARIA roles and labels, ids) on nodes built with el(), which takes only a few props.

/** Sets each attribute of `attrs` on `node` (null/undefined/false skipped) and returns the node. */
export function withAttrs(node, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    node.setAttribute(k, String(v));
  }
  return node;
}
