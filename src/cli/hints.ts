// The fix the CLI prints after a refusal (401, 403, 404): chosen from the server's error code and
// text (which names the room, agent or scope) and from where the command's token came from. Pure:
// the table in docs/cli.md lists every case, test/cli/cli.unit.test.ts checks each exact line.
// Hints about agent credentials (which kept token, `svc connect`) are chosen elsewhere.

import path from 'node:path';

/** What the command knows about its call besides the error. */
export interface HintContext {
  url: string;
  /** Where the token came from; undefined when the call was anonymous. */
  tokenSource?: '--token' | 'SVC_TOKEN' | 'config' | 'kept';
  /** The config the command read (absolute), and whether it exists. */
  configFile?: string;
  configExists?: boolean;
}

/** The hint for a refusal, or undefined when the generic one of the client stays. */
export function refusalHint(status: number, code: string, detail: string, ctx: HintContext): string | undefined {
  if (status === 401) return unauthorizedHint(ctx);
  if (status === 403) return forbiddenHint(detail, ctx);
  if (status === 404 && code === 'not_found') return notFoundHint(detail, ctx);
  return undefined;
}

function cfgName(ctx: HintContext): string {
  return ctx.configFile ? path.basename(ctx.configFile) : 'svc.yaml';
}

/** Where the token came from, in words. */
function tokenFrom(ctx: HintContext): string {
  switch (ctx.tokenSource) {
    case '--token':
      return 'the token given with --token';
    case 'SVC_TOKEN':
      return 'the token in SVC_TOKEN';
    case 'config':
      return `the operator token of ${cfgName(ctx)}`;
    case 'kept':
      return 'the kept agent token';
    default:
      return 'no token';
  }
}

const USE_OPERATOR =
  "run the command in the server's config folder (or pass --config FILE) so its operator token is used, or pass --token (env SVC_TOKEN)";

function unauthorizedHint(ctx: HintContext): string {
  switch (ctx.tokenSource) {
    case undefined: {
      const why = ctx.configExists ? `${cfgName(ctx)} has no operator token for ${ctx.url}` : `no ${cfgName(ctx)} here`;
      return `no token was sent (no --token, no SVC_TOKEN, ${why}): ${USE_OPERATOR}`;
    }
    case 'config':
      return `${tokenFrom(ctx)} was refused by ${ctx.url}: that server runs with another config or an older copy of it; restart it with svc serve${ctx.configFile && ctx.configFile !== path.resolve('svc.yaml') ? ` --config ${ctx.configFile}` : ''} (svc doctor checks)`;
    case '--token':
      return `${tokenFrom(ctx)} was refused by ${ctx.url}: check it against auth.tokens of that server's config, or leave --token out to use the operator token of ${cfgName(ctx)}`;
    case 'SVC_TOKEN':
      return `${tokenFrom(ctx)} was refused by ${ctx.url}: check it against auth.tokens of that server's config, or unset SVC_TOKEN to use the operator token of ${cfgName(ctx)}`;
    case 'kept':
      return `${tokenFrom(ctx)} was refused by ${ctx.url}: the agent was removed or the network was reset; register it again with svc agents register --id ID (svc agents token ID shows what is kept)`;
  }
}

function forbiddenHint(detail: string, ctx: HintContext): string | undefined {
  let m = /^(\S+) is not a member of room (\S+) \(write_policy: members\)$/.exec(detail);
  if (m) return `add it to the room: svc rooms members ${m[2]} --add ${m[1]}`;
  m = /^room (\S+) accepts members and registered local agents only/.exec(detail);
  if (m) return `add the sender to the room (svc rooms members ${m[1]} --add ID), or send as a registered agent (svc agents register)`;
  m = /^room (\S+) accepts only operator credentials/.exec(detail);
  if (m) return `send with an operator token: ${USE_OPERATOR}`;
  m = /^the token lacks a required scope \(one of: ([^)]+)\)$/.exec(detail);
  if (m) {
    const scopes = m[1]!.split(', ').join(' or ');
    return `${tokenFrom(ctx)} lacks the ${scopes} scope this needs: use a token that has it; tokens and their scopes are auth.tokens in the server's config (the operator token svc init writes has observe, write, admin)`;
  }
  if (detail === 'self-registered agent tokens may not use this route') {
    return `this needs an operator token, not an agent's: leave --token and SVC_TOKEN out and ${USE_OPERATOR.replace(', or pass --token (env SVC_TOKEN)', '')}`;
  }
  if (detail.startsWith('human messages are disabled'))
    return "set server.human_ingress: true in the server's config (it reloads on save), or send as an agent (--as)";
  if (detail.startsWith('direct messages are disabled'))
    return "set server.direct_messages: true in the server's config (it reloads on save)";
  return undefined;
}

function notFoundHint(detail: string, ctx: HintContext): string | undefined {
  if (detail.startsWith('no route')) return undefined;
  const hidden =
    ctx.tokenSource === undefined ? `; no token was sent, and what is private looks missing to an anonymous caller: ${USE_OPERATOR}` : '';
  let m = /^room (\S+) not found$/.exec(detail);
  if (m) return `list the rooms: svc rooms list${hidden}`;
  m = /^agent (\S+) not found$/.exec(detail);
  if (m) return `list the agents: svc agents list${hidden}`;
  m = /^parent message (\S+) in room (\S+) not found$/.exec(detail);
  if (m) return `reply to a message of that room: svc read --room ${m[2]} shows their ids${hidden}`;
  m = /^thread (\S+) not found$/.exec(detail);
  if (m)
    return `check the thread id: GET /v1/rooms/ROOM/threads lists the threads of a room (svc send --room ROOM --thread NEW starts one)${hidden}`;
  m = /^dm (\S+) not found$/.exec(detail);
  if (m) return `name the DM by its agents instead: svc read --dm AGENT,AGENT${hidden}`;
  return hidden === '' ? undefined : hidden.slice(2);
}
