package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-11-24T21:33:52Z"},
			{Key: "vcs.modified", Value: modified},
		}
	}
	tests := []struct {
		name string
		set  string
		bi   *debug.BuildInfo
		want string
	}{
		{"set with -ldflags", "v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}}, "v1.2.3"},
		{"go install @version", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}}, "v0.9.0"},
		{"stamped checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261124213352-0123456789ab+dirty"}}, "v0.0.0-20261124213352-0123456789ab+dirty"},
		{"devel with vcs", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("false")}, "v0.0.0-20261124213352-0123456789ab"},
		{"devel with vcs, modified", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("true")}, "v0.0.0-20261124213352-0123456789ab+dirty"},
		{"devel without vcs", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, develVersion},
		{"no build information", "", nil, develVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionOf(tt.set, tt.bi); got != tt.want {
				t.Errorf("versionOf(%q, ...) = %q, want %q", tt.set, got, tt.want)
			}
		})
	}
}
