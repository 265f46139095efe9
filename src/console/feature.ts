// The console as a Feature: its routes, the session cookie as a credential for every HTTP route
// and the SSE stream, presence fed from the broker, and the stored part its unread counts keep
// (people's read markers, src/store/person-read/).

import { storing, type FeatureFactory } from '../feature.js';
import { personReadPart } from '../store/person-read/part.js';
import { cookieMayAuthenticate } from './csrf.js';
import { parseCookies, SESSION_COOKIE } from './cookies.js';
import { Presence } from './presence.js';
import { consoleRoutes } from './routes.js';
import { SessionStore } from './sessions.js';
import { unreadRoutes } from './unread-routes.js';
import { SignInCodes, signInCodeRoutes } from './sign-in-codes.js';

export const consoleFeature: FeatureFactory = storing([personReadPart], (app) => {
  const sessions = new SessionStore();
  const presence = new Presence();
  const codes = new SignInCodes();
  return {
    // Sign-in first: the router takes the first match, and /console/:file would match /console/sign-in.
    routes: [
      ...signInCodeRoutes({ codes, sessions, address: () => app.address(), failed: (req) => app.http.admit?.(req, undefined, true) }),
      ...consoleRoutes({ sessions, presence, auth: () => app.auth(), address: () => app.address() }),
      ...unreadRoutes,
    ],
    sessionToken: (req) => {
      const id = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
      if (id === undefined || !cookieMayAuthenticate(req.method, req.headers)) return undefined;
      return sessions.tokenOf(id);
    },
    observe: { event: (e) => presence.observe(e) },
    close() {
      codes.clear();
      sessions.clear();
    },
  };
});
