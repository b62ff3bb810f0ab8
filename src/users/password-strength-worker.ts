/**
 * The thread password-strength.ts judges passwords in: one question at a time, answered with
 * the password's weakness (null when strong) or why it could not be judged. A module of its own,
 * and an entry of the `lipira` bundle (bin/lipira.js), since a worker starts from a file.
 */
import { parentPort } from 'node:worker_threads';
import { judgePassword } from './password-estimate.ts';

export interface StrengthQuestion {
  password: string;
  personal: string[];
}

export type StrengthAnswer = { weakness: string | null } | { failure: string };

const port = parentPort!;

port.on('message', async ({ password, personal }: StrengthQuestion) => {
  let answer: StrengthAnswer;
  try {
    answer = { weakness: await judgePassword(password, personal) };
  } catch (error) {
    answer = { failure: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(answer);
});
