// The JSON text of wire objects (events), computed once per object and shared by whoever needs
// it: the replay buffer keeps events as this text, live streams send it, the store may supply it.
// The objects are never changed once published, so a cached text never goes stale.

const texts = new WeakMap<object, string>();

/** JSON.stringify(value), computed once per object. */
export function jsonOf(value: object): string {
  let s = texts.get(value);
  if (s === undefined) {
    s = JSON.stringify(value);
    texts.set(value, s);
  }
  return s;
}

/** Records `json` (exactly JSON.stringify(value)) as the text of `value`. */
export function rememberJson(value: object, json: string): void {
  texts.set(value, json);
}
