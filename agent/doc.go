// Package agent is wield's agent loop: give it a task, a model and tools,
// and it works the task, recording everything in a session.
//
// # The loop
//
// [Agent.Run] builds the prompt, calls the model, and if the reply has tool
// calls, runs them all through the [tool.Runner] (parallel where the tools
// allow), appends the results and asks the model again. It stops when:
//
//   - the model answers with text and no tool calls (StopAnswer);
//   - MaxRounds model calls were made (StopMaxRounds; the last text is
//     returned and the outcome says the limit was reached);
//   - the same call with the same result came back LoopRepeats times within
//     LoopWindow rounds (StopLoop);
//   - a tool named in StopAtTools ran successfully (StopTool);
//   - ctx was cancelled (StopCancelled).
//
// Tool errors, invalid arguments and unknown tools go back to the model as
// failed results; only faults (the session could not be written, the model
// endpoint failed after its retries) end a run with an error.
//
// # Configuration
//
// An agent is configured by value: [Config] holds the model, the tool
// registry and the [tool.RunnerOptions], and [New] copies it. The agent
// builds a [tool.Runner] for each run from the registry and the options,
// with the run's session as the runner's recorder. The tools get what they
// need from the host when they are built (a session store, someone to
// ask), not through the agent.
//
// # Sessions
//
// A run is one transaction of its [Session]: the task, each model response
// and each tool call and result go into the session's pool as they happen
// (tool calls through the runner's [tool.Recorder]), and the pool is
// committed when the run ends normally. If the run fails or is cancelled,
// the pool is aborted: kept, with an "interrupted" result for every call
// that has none, so the next request always has one result per call.
//
// # Prompts
//
// [BuildPrompt] assembles the request deterministically from the system
// prompt, project instructions (AGENTS.md, else WIELD.md, found upward from
// the workspace), the session's history, the fresh content of its active
// file references, its todo list and the task.
//
// # Images
//
// A tool result's Images (a screenshot, an image file read) reach the
// model beside its text, in each provider's form. A prompt keeps only the
// newest [Config.MaxImages] of them (3 by default): each older one is
// replaced by a one-line note naming its call ([KeepImages]), which never
// changes once written, so a prompt's prefix stays cacheable. A durable
// session keeps every image in its blob store and its journal names them
// by hash; the loop reads the bytes back ([ImageStore]) for the images a
// prompt keeps, and checks each picture's header before it is sent.
package agent
