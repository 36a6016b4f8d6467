// The loop benchmark's driver for the OpenAI Agents SDK (JavaScript): an
// Agent with one function tool on the chat completions model against the
// scripted server, run with maxTurns rounds+1. Prints "rounds=N seconds=S".
import { Agent, run, tool, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^-+/, '').split('=')));
const rounds = Number(args.rounds ?? 10);
setDefaultOpenAIClient(new OpenAI({ baseURL: args.url, apiKey: 'none' }));
setOpenAIAPI('chat_completions');
setTracingDisabled(true);
const add = tool({
  name: 'add',
  description: 'Add two integers.',
  parameters: z.object({ a: z.number().int().describe('the first addend'), b: z.number().int().describe('the second addend') }),
  execute: async ({ a, b }) => String(a + b),
});
const agent = new Agent({ name: 'loop', instructions: 'Add numbers until told to stop.', model: `loop-${rounds}`, tools: [add] });

const start = performance.now();
const out = await run(agent, 'Add numbers until told to stop.', { maxTurns: rounds + 1 });
const secs = (performance.now() - start) / 1000;
if (out.finalOutput !== 'done') {
  console.error(`the run ended with ${JSON.stringify(out.finalOutput)}, want "done"`);
  process.exit(1);
}
console.log(`rounds=${rounds} seconds=${secs.toFixed(6)}`);
