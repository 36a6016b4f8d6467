package plugin_test

import (
	"fmt"

	"github.com/wieldhq/wield/plugin"
)

func ExampleParseCommand() {
	c, _ := plugin.ParseCommand([]byte("---\ndescription: Explain a package\nargument-hint: PACKAGE\n---\nExplain what $1 does, for a newcomer.\n"), "explain")
	fmt.Println(c.Description)
	fmt.Println(c.Expand("net/http"))
	// Output:
	// Explain a package
	// Explain what net/http does, for a newcomer.
}

func ExampleParseManifest() {
	m, problems := plugin.ParseManifest([]byte(`{"name": "lint-helper", "version": "1.0.0", "commands": ["./more-commands"], "outputStyles": "./styles"}`))
	fmt.Println(m.Name, m.Version, m.Commands)
	for _, p := range problems {
		fmt.Println(p)
	}
	// Output:
	// lint-helper 1.0.0 [./more-commands]
	// info: plugin.json: "outputStyles" is ignored
}
