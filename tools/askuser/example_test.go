package askuser_test

import (
	"fmt"

	"github.com/wieldhq/wield/tools/askuser"
)

// A terminal reads the typed reply with ParseAnswer: numbers choose
// options, anything else is the person's own words.
func ExampleParseAnswer() {
	q := askuser.Question{Text: "Which database?", Multiple: true, Options: []askuser.Option{
		{Label: "sqlite", Description: "one file, no server"},
		{Label: "postgres", Description: "a server"},
	}}
	for _, reply := range []string{"2", "1, 2", "whatever is simplest", "3"} {
		a, err := askuser.ParseAnswer(q, reply)
		if err != nil {
			fmt.Printf("%q: ask again: %v\n", reply, err)
			continue
		}
		fmt.Printf("%q: chosen %q, text %q\n", reply, a.Chosen, a.Text)
	}
	// Output:
	// "2": chosen ["postgres"], text ""
	// "1, 2": chosen ["sqlite" "postgres"], text ""
	// "whatever is simplest": chosen [], text "whatever is simplest"
	// "3": ask again: 3 is not an option: type a number from 1 to 2, or answer in words
}
