package temporal

import (
	"os"
	"path/filepath"
	"testing"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/wieldhq/wield/agent"
)

// recordEnv, when set, makes the tests that run workflows write their
// histories to testdata/history, for TestReplay:
//
//	WIELD_RECORD_HISTORY=1 scripts/temporal-dev.sh --exec go test -run 'TestRun$|TestWorkerKilled' .
const recordEnv = "WIELD_RECORD_HISTORY"

// recordHistory writes run id's history to testdata/history/name.json
// when recordEnv is set.
func recordHistory(t *testing.T, c *Client, id, name string) {
	t.Helper()
	if os.Getenv(recordEnv) == "" {
		return
	}
	hist := &historypb.History{}
	it := c.c.GetWorkflowHistory(t.Context(), id, "", false, 0)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		hist.Events = append(hist.Events, e)
	}
	b, err := temporalproto.CustomJSONMarshalOptions{Indent: " "}.Marshal(hist)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join("testdata", "history"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "history", name+".json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func histories(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "history", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded histories in testdata/history (%v): record them with %s=1", err, recordEnv)
	}
	return files
}

// TestReplay replays recorded histories through the workflow: a change to
// the loop (the workflow or agent.Machine) that would decide differently
// on a run recorded before it fails here, instead of breaking the runs in
// flight when workers are upgraded.
func TestReplay(t *testing.T) {
	for _, f := range histories(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(Run, workflow.RegisterOptions{Name: WorkflowName})
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestReplayCatchesChange checks that the replay test has teeth: a
// workflow that decides differently (here, one that stops at once
// instead of opening the session) fails to replay every recorded
// history.
func TestReplayCatchesChange(t *testing.T) {
	changed := func(ctx workflow.Context, in RunInput) (*agent.Outcome, error) {
		return &agent.Outcome{Reason: agent.StopAnswer}, nil
	}
	for _, f := range histories(t) {
		r := worker.NewWorkflowReplayer()
		r.RegisterWorkflowWithOptions(changed, workflow.RegisterOptions{Name: WorkflowName})
		if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err == nil {
			t.Errorf("%s replayed through a workflow that decides differently", filepath.Base(f))
		}
	}
}
