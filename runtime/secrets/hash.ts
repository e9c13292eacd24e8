// The one SHA-256 helper: tokens, session ids, single-use links and OAuth states are stored only as
// the hex digest of their value.
import { createHash } from 'node:crypto';

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex');
