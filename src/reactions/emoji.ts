// Which reaction keys are accepted (pure): one Unicode emoji (a single grapheme: a pictograph with
// its modifiers, variation selectors and zero-width joins, a flag, a keycap) or a `:name:`
// shortcode. Nothing is rewritten: `❤` and `❤️` are two keys, as they are two strings.

/** Distinct emoji one message may carry (Slack allows 23, GitHub 8 fixed ones). */
export const MAX_DISTINCT_REACTIONS = 20;

/** The longest key accepted, in UTF-8 bytes (the longest standard ZWJ sequences take 35). */
export const MAX_EMOJI_BYTES = 64;

const SHORTCODE = /^:[a-z0-9_+-]{1,32}:$/;

// A pictograph, each optionally followed by a skin tone, VS16 or tag characters (subdivision
// flags), joined by ZWJ; or a pair of regional indicators (a flag); or a keycap.
const MOD = '(?:\\p{Emoji_Modifier}|\\uFE0F|[\\u{E0020}-\\u{E007F}])';
const EMOJI = new RegExp(
  `^(?:\\p{Regional_Indicator}{2}|[#*0-9]\\uFE0F?\\u20E3|\\p{Extended_Pictographic}${MOD}*(?:\\u200D\\p{Extended_Pictographic}${MOD}*)*)$`,
  'u',
);

// Made on first use: building a segmenter loads ICU data (~15 ms of every start otherwise).
let graphemes: Intl.Segmenter | undefined;

/** Why `key` is not a reaction, or undefined when it is one. */
export function emojiProblem(key: string): string | undefined {
  if (key.length === 0) return 'is empty';
  if (Buffer.byteLength(key, 'utf8') > MAX_EMOJI_BYTES) return `is longer than ${MAX_EMOJI_BYTES} bytes`;
  if (key.startsWith(':')) {
    return SHORTCODE.test(key) ? undefined : 'a shortcode is :name: with 1-32 of a-z 0-9 _ + -';
  }
  if (!EMOJI.test(key)) return 'must be one Unicode emoji or a :name: shortcode';
  let n = 0;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const _ of graphemes.segment(key)) if (++n > 1) return 'must be one emoji, not several';
  return undefined;
}
