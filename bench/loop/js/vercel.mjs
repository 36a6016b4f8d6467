// The loop benchmark's driver for the Vercel AI SDK: generateText with one
// tool and the OpenAI-compatible provider against the scripted server,
// stopping after rounds+1 steps. Prints "rounds=N seconds=S".
import { generateText, tool, stepCountIs } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { z } from 'zod';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^-+/, '').split('=')));
const rounds = Number(args.rounds ?? 10);
const provider = createOpenAICompatible({ name: 'loop', baseURL: args.url, apiKey: 'none' });
const add = tool({
  description: 'Add two integers.',
  inputSchema: z.object({ a: z.number().int().describe('the first addend'), b: z.number().int().describe('the second addend') }),
  execute: async ({ a, b }) => String(a + b),
});

const start = performance.now();
const out = await generateText({
  model: provider(`loop-${rounds}`),
  tools: { add },
  prompt: 'Add numbers until told to stop.',
  stopWhen: stepCountIs(rounds + 1),
});
const secs = (performance.now() - start) / 1000;
if (out.text !== 'done' || out.steps.length !== rounds + 1) {
  console.error(`the run ended after ${out.steps.length} steps with ${JSON.stringify(out.text)}, want ${rounds + 1} and "done"`);
  process.exit(1);
}
console.log(`rounds=${rounds} seconds=${secs.toFixed(6)}`);
