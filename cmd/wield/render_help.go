package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// examples are the Example sections of the commands' help, by command
// path. A test checks that every command has one and that none is
// stale.
var examples = map[string]string{
	"wield": `  wield run 'add a --verbose flag to the CLI'   # work a task with a model
  wield run --continue 'now add a test for it'     # go on in the latest session
  wield chat                                       # one task per line
  wield doctor                                     # what is configured, what is missing`,
	"wield run": `  wield run 'fix the failing test in ./parser'
  echo 'summarise README.md' | wield run
  wield run --continue 'and update the changelog'     # the latest session
  wield run --resume 20261125-03 'try another way'    # a unique id prefix
  wield run --model anthropic:claude-sonnet-4-5 --mode auto-edit 'rename Foo to Bar'
  wield run --json 'list the TODOs' | jq -r 'select(.kind=="text_delta").text'
  wield run --replay examples/demo.jsonl 'say hello'  # a scripted model, offline`,
	"wield chat": `  wield chat
  wield chat --continue --model ollama:qwen3
  printf 'explain main.go\nnow simplify it\n' | wield chat --mode auto-edit`,
	"wield call": `  wield call read_file '{"path": "README.md"}'
  wield call --output text search_file_content '{"pattern": "TODO"}'
  wield call --approve write_file @args.json`,
	"wield mcp": `  wield mcp                                  # serve wield's tools over stdio
  wield mcp --http 127.0.0.1:8808            # over streamable HTTP`,
	"wield mcp ls":    `  wield mcp ls`,
	"wield mcp tools": `  wield mcp tools github`,
	"wield mcp doctor": `  wield mcp doctor                           # every configured server
  wield mcp doctor github --json             # one server, as JSON`,
	"wield mcp confirm": `  wield mcp confirm helper                   # in the latest session
  wield mcp confirm helper --session 20261125-101500-a1b2c3`,
	"wield session": `  wield session ls
  wield session show 20261125-030554-0535c6`,
	"wield session ls":     `  wield session ls`,
	"wield session show":   `  wield session show 20261125-030554-0535c6`,
	"wield session export": `  wield session export 20261125-030554-0535c6 > session.json`,
	"wield session rm":     `  wield session rm 20261125-030554-0535c6`,
	"wield session fork":   `  wield session fork 20261125-030554-0535c6 --at 12`,
	"wield session compact": `  wield session compact 20261125-030554-0535c6
  wield session compact 20261125-030554-0535c6 --focus 'the parser changes'`,
	"wield tools": `  wield tools
  wield tools --format anthropic
  wield tools --format openai --strict`,
	"wield models": `  wield models
  wield models anthropic`,
	"wield agents": `  wield agents`,
	"wield memory": `  wield memory ls
  wield memory search database`,
	"wield memory ls":     `  wield memory ls`,
	"wield memory rm":     `  wield memory rm project:staging-database-resets-mondays`,
	"wield memory search": `  wield memory search 'staging database'`,
	"wield memory show":   `  wield memory show project:staging-database-resets-mondays`,
	"wield trust": `  wield trust                     # trust this workspace as its configuration is now
  wield trust --tree ~/src/mine   # trust every folder under ~/src/mine
  wield trust --list
  wield trust --revoke .`,
	"wield version": `  wield version
  wield --version`,
	"wield doctor": `  wield doctor
  wield doctor --check-model         # also send the model one tiny request
  wield doctor --json`,
	"wield docs": `  wield index docs
  wield docs search 'how often do backups rotate'`,
	"wield docs ls":     `  wield docs ls`,
	"wield docs search": `  wield docs search 'how often do backups rotate'`,
	"wield docs show":   `  wield docs show docs/ops.md --range 40-80`,
	"wield index":       `  wield index docs README.md`,
	"wield plugin": `  wield plugin ls
  wield plugin add ./my-plugin`,
	"wield plugin add":     `  wield plugin add ./my-plugin`,
	"wield plugin disable": `  wield plugin disable my-plugin`,
	"wield plugin enable":  `  wield plugin enable my-plugin`,
	"wield plugin ls":      `  wield plugin ls`,
	"wield plugin rm":      `  wield plugin rm my-plugin`,
	"wield skills": `  wield skills ls
  wield skills show pdf`,
	"wield skills add":  `  wield skills add ./skills/pdf`,
	"wield skills ls":   `  wield skills ls`,
	"wield skills rm":   `  wield skills rm pdf`,
	"wield skills show": `  wield skills show pdf`,
	"wield rewind":      `  wield rewind --to 3 --both`,
	"wield undo": `  wield undo --list
  wield undo --yes`,
}

// setExamples fills in the Example of every command under root that has
// none, from examples.
func setExamples(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Example == "" {
			c.Example = strings.TrimRight(examples[c.CommandPath()], "\n")
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}
