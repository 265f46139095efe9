// wait_for_messages bounds, shared by the tool and the client snippets (which raise tool timeouts).

export const WAIT_DEFAULT_S = 60;
export const WAIT_MAX_S = 300;
