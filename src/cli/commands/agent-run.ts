import { EXIT, type Io } from '../io.js';
export async function agentRunCommand(io: Io, _command: string[], _flags: object): Promise<number> {
  io.err('svc agent run: not yet');
  return EXIT.failure;
}
