// Who may see a room and who may write in it (SPEC, Room). Re-exported by ./types.js.

export type Visibility = 'public' | 'private';
export type WritePolicy = 'members' | 'registered_agents' | 'operators';
