// svc rooms list / get / create / delete / members: the room endpoints for operators.

import { collectAll } from '../../../client/pages.js';
import type { CreateRoomRequest } from '../../../client/svc-client.js';
import type { RetentionPolicy, Room, Visibility, WritePolicy } from '../../../protocol/types.js';
import { describeRetention } from '../../../protocol/retention.js';
import { json, keyValues, list, table } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { UsageError } from '../../target.js';
import { splitList } from '../../options.js';
import { anonymousHint, withClient, type ClientFlags, type ListFlags } from '../../with-client.js';

/** Prints every room (or the newest --limit) as a table, or `{rooms}` with --json. */
export function roomsList(io: Io, flags: ListFlags): Promise<number> {
  return withClient(io, 'rooms list', flags, async (client, target) => {
    const rooms =
      flags.limit !== undefined
        ? (await client.listRooms({ limit: flags.limit })).rooms
        : await collectAll((q) => client.listRooms(q).then((r) => ({ items: r.rooms, page: r.page })));
    if (flags.json) {
      io.out(json({ rooms }));
      return EXIT.ok;
    }
    const hint = anonymousHint(target, 'public rooms only; private rooms are hidden');
    if (rooms.length === 0) {
      io.out(hint ? 'no rooms visible to an anonymous caller' : 'no rooms (create one with: svc rooms create ID)');
      if (hint) io.err(hint);
      return EXIT.ok;
    }
    if (hint) io.err(hint);
    const c = io.color;
    for (const line of table(c, rooms, [
      { header: 'ID', value: (r) => r.id, style: (s) => c.cyan(s) },
      { header: 'NAME', value: (r) => r.name },
      { header: 'VISIBILITY', value: (r) => r.visibility, style: (s, r) => (r.visibility === 'private' ? c.yellow(s) : s) },
      { header: 'WRITE POLICY', value: (r) => r.write_policy },
      { header: 'MEMBERS', value: (r) => list(r.members) },
    ])) {
      io.out(line);
    }
    return EXIT.ok;
  });
}

/** A room's retention as it is kept: its own fields over the network's (`svc rooms get`). */
export function retentionLine(room: RetentionPolicy | undefined, network: RetentionPolicy | undefined): string {
  const kept = { ...network, ...room };
  const whose = room ? (network ? 'the room over the network' : 'the room') : network ? 'the network' : undefined;
  return whose ? `${describeRetention(kept)} (${whose})` : 'forever';
}

/** The key/value lines of one room; `network` is the network's retention when known. */
export function roomLines(io: Io, r: Room, network?: RetentionPolicy): string[] {
  return keyValues(io.color, [
    ['id', io.color.cyan(r.id)],
    ['name', r.name],
    ['fqid', r.fqid],
    ['visibility', r.visibility],
    ['write policy', r.write_policy],
    ['members', list(r.members)],
    ['retention', retentionLine(r.retention, network)],
    ['created', r.created_at],
  ]);
}

export function roomsGet(io: Io, id: string, flags: ClientFlags): Promise<number> {
  return withClient(io, 'rooms get', flags, async (client) => {
    const room = await client.getRoom(id);
    if (flags.json) io.out(json(room));
    else roomLines(io, room, (await client.network()).retention).forEach((l) => io.out(l));
    return EXIT.ok;
  });
}

export interface CreateFlags extends ClientFlags {
  name?: string;
  member?: string[];
  visibility?: Visibility;
  writePolicy?: WritePolicy;
}

export function roomsCreate(io: Io, id: string, flags: CreateFlags): Promise<number> {
  return withClient(io, 'rooms create', flags, async (client) => {
    const body: CreateRoomRequest = { id };
    if (flags.name !== undefined) body.name = flags.name;
    if (flags.member) body.members = splitList(flags.member);
    if (flags.visibility) body.visibility = flags.visibility;
    if (flags.writePolicy) body.write_policy = flags.writePolicy;
    const room = await client.createRoom(body);
    if (flags.json) {
      io.out(json(room));
      return EXIT.ok;
    }
    io.out(
      `${io.color.green('created')} room ${room.id} (${room.visibility}, write policy ${room.write_policy}, members: ${list(room.members)})`,
    );
    return EXIT.ok;
  });
}

export function roomsDelete(io: Io, id: string, flags: ClientFlags): Promise<number> {
  return withClient(io, 'rooms delete', flags, async (client) => {
    const r = await client.deleteRoom(id);
    if (flags.json) io.out(json(r));
    else io.out(`${io.color.red('removed')} room ${r.id} (soft: its messages are kept; svc rooms create ${r.id} revives it)`);
    return EXIT.ok;
  });
}

export interface MembersFlags extends ClientFlags {
  add?: string[];
  remove?: string[];
}

/** Without --add/--remove: prints the members. With them: changes the members and prints the result. */
export function roomsMembers(io: Io, id: string, flags: MembersFlags): Promise<number> {
  return withClient(io, 'rooms members', flags, async (client) => {
    const add = splitList(flags.add ?? []);
    const remove = splitList(flags.remove ?? []);
    const both = add.filter((a) => remove.includes(a));
    if (both.length > 0) throw new UsageError(`${both.join(', ')}: both --add and --remove`);
    const changing = add.length > 0 || remove.length > 0;
    const room = changing ? await client.updateMembers(id, { add, remove }) : await client.getRoom(id);
    if (flags.json) {
      io.out(json(changing ? room : { room_id: room.id, members: room.members }));
      return EXIT.ok;
    }
    const c = io.color;
    if (changing) {
      const what = [...add.map((a) => c.green(`+${a}`)), ...remove.map((r) => c.red(`-${r}`))].join(' ');
      io.out(`room ${room.id}: ${what}`);
    }
    if (room.members.length === 0) io.out(changing ? 'members: none' : `room ${room.id} has no members`);
    else if (changing) io.out(`members: ${room.members.join(', ')}`);
    else room.members.forEach((m) => io.out(m));
    return EXIT.ok;
  });
}
