// The answers of the client's list calls: each list beside the spec's page object.
import type { AgentSummary, Artifact, DirectConversation, Message, Page, Pairing, Room, Thread } from '../protocol/types.js';
import type { SearchHit } from '../protocol/search-text.js';

export type RoomList = { rooms: Room[]; page: Page };
export type AgentList = { agents: AgentSummary[]; page?: Page };
export type MessagePage = { messages: Message[]; page: Page };
export type ThreadList = { threads: Thread[]; page: Page };
export type DmList = { dms: DirectConversation[]; page: Page };
export type ArtifactList = { artifacts: Artifact[]; page: Page };
export type PairingList = { pairings: Pairing[]; page: Page };
export type SearchPage = { messages: SearchHit[]; page: Page };
export type { SearchHit };
