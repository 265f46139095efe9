// Rooms that both svc.yaml and `svc apply` declare (issue 38 item 18). svc.yaml wins, as it does for
// hooks: each reload declares its rooms again (name, visibility and write policy set, members added),
// so an apply that differs from it on those would be undone silently by the next reload. Such an
// apply is refused (409 naming the field and svc.yaml); what svc.yaml leaves unsaid (a field it
// does not set, members beyond its own) is the apply's, and survives reloads. Pure: the server's
// check and the CLI's dry run share it.

import type { Visibility, WritePolicy } from '../protocol/types.js';
import { normalizeMember } from './members.js';

/** What one declaration (svc.yaml's or an apply's) says about a room. */
export interface RoomDeclaration {
  name?: string;
  members?: string[];
  visibility?: Visibility;
  write_policy?: WritePolicy;
}

/** One field where an apply differs from svc.yaml: `file` is what svc.yaml sets, and a reload sets again. */
export interface Overridden {
  field: 'name' | 'members' | 'visibility' | 'write_policy';
  file: string;
}

/** Where `applied` differs from `file` in a way the next reload would undo (empty: the apply agrees with svc.yaml). */
export function undoneByReload(net: string, file: RoomDeclaration, applied: RoomDeclaration): Overridden[] {
  const out: Overridden[] = [];
  for (const field of ['name', 'visibility', 'write_policy'] as const) {
    const f = file[field];
    const a = applied[field];
    if (f !== undefined && a !== undefined && f !== a) out.push({ field, file: f });
  }
  if (file.members !== undefined && applied.members !== undefined) {
    const norm = (m: string) => normalizeMember(net, m) ?? m;
    const kept = new Set(applied.members.map(norm));
    // A reload adds svc.yaml's members back; members it does not name are left as applied.
    const dropped = file.members.map(norm).filter((m) => !kept.has(m));
    if (dropped.length > 0) out.push({ field: 'members', file: dropped.join(', ') });
  }
  return out;
}

/** The words of one overridden field, for the 409 and the dry run. */
export function overriddenText(room: string, o: Overridden): string {
  const what = o.field === 'members' ? `lists ${o.file} as members` : `sets ${o.field} ${o.file}`;
  return `room ${room} is declared in the server's svc.yaml, which ${what} and wins: the next reload would undo this`;
}
