// The console's addresses (the part after #), parsed without touching the page:
//   #/room/<room>                 the room
//   #/room/<room>/t/<thread>      the room with a thread open in the side panel
//   #/room/<room>/t/<thread>/m/<message>  a reply's permalink: that thread in the panel, at the reply
//   #/room/<room>/reply/<message> the room with the panel on that message's thread (new or not)
//   #/<room|thread|dm>/<id>/m/<message>  a permalink: the conversation at that message
//   #/thread/<thread>, #/dm/<dm>  a thread or DM on its own
//   #/to/<agent>                  a DM to be started with that agent

const ROUTE = /^#\/(room|thread|dm|to)\/([^/]+)(?:\/(t|reply|m)\/([^/]+))?(?:\/m\/([^/]+))?$/;

/** The route of `hash`: {kind, id, thread?, reply?, message?}, undefined when none, null when malformed. */
export function parseRoute(hash) {
  if (hash === '' || hash === '#' || hash === '#/') return undefined;
  const m = ROUTE.exec(hash);
  if (!m) return null;
  try {
    const r = { kind: m[1], id: decodeURIComponent(m[2]) };
    if (m[3]) {
      const sub = decodeURIComponent(m[4]);
      if (m[3] === 'm') r.message = sub;
      else if (m[1] !== 'room') return null;
      else if (m[3] === 't') r.thread = sub;
      else r.reply = sub;
    }
    if (m[5] !== undefined) {
      if (!r.thread) return null;
      r.message = decodeURIComponent(m[5]);
    }
    if (r.kind === 'to' && m[3]) return null;
    return r;
  } catch {
    return null;
  }
}
