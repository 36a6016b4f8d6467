package skill

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Listing budget defaults.
const (
	// BudgetFraction is the share of the context window the listing may
	// take by default: 1%.
	BudgetFraction = 0.01
	// CharsPerToken converts a token budget into characters.
	CharsPerToken = 4
	// MinBudget is the smallest budget [Budget] returns, in characters.
	MinBudget = 2000
	// MinDescription is the fewest characters a description is shortened
	// to; when the listing does not fit even then, [Listing] gives up.
	MinDescription = 40
)

// Budget returns the listing budget in characters for a context window of
// window tokens: [BudgetFraction] of it, at [CharsPerToken] characters a
// token, and at least [MinBudget]. A window of zero or less gives
// MinBudget.
func Budget(window int) int {
	return max(MinBudget, int(float64(window)*BudgetFraction*CharsPerToken))
}

// ListingHeader opens the listing; the model reads it.
const ListingHeader = "These skills hold instructions for particular tasks. When a task matches a description, call activate_skill with the skill's name first and follow what it says; read its other files only as needed.\n"

// Listing renders the skills the model may activate (those not
// ModelHidden), one line each with the name, the description and the
// SKILL.md path, within budget characters. When the full descriptions do
// not fit, every description is cut to the same length, the longest that
// fits, down to [MinDescription]; when even that does not fit, Listing
// returns ok false and the caller offers a search tool instead
// (skill_search). A budget of zero or less means no limit. An empty list
// gives "" and ok true.
func Listing(skills []*Skill, budget int) (text string, ok bool) {
	visible := skills[:0:0]
	for _, s := range skills {
		if !s.ModelHidden {
			visible = append(visible, s)
		}
	}
	if len(visible) == 0 {
		return "", true
	}
	// Sizes are computed, not rendered, while searching for the cut: a
	// line is its fixed parts plus its description, cut or whole.
	fixed := len("<available_skills>\n") + len(ListingHeader) + len("</available_skills>")
	offsets := make([][]int, len(visible)) // byte offset of each rune
	longest := 0
	for i, s := range visible {
		fixed += len("- ") + len(s.Name) + len(": ") + len(" (") + len(s.Path) + len(")\n")
		for at := range s.Description {
			offsets[i] = append(offsets[i], at)
		}
		longest = max(longest, len(offsets[i]))
	}
	size := func(limit int) int {
		n := fixed
		for i, s := range visible {
			if limit < 0 || len(offsets[i]) <= limit {
				n += len(s.Description)
			} else {
				n += offsets[i][max(0, limit-1)] + len("…")
			}
		}
		return n
	}
	if budget <= 0 || size(-1) <= budget {
		return render(visible, -1), true
	}
	// The longest cut that fits, by binary search: the size grows with
	// the cut.
	lo, hi := MinDescription, longest
	if size(lo) > budget {
		return "", false
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if size(mid) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return render(visible, lo), true
}

// render writes the listing with descriptions cut to limit runes; a
// negative limit means whole.
func render(skills []*Skill, limit int) string {
	var b strings.Builder
	b.WriteString("<available_skills>\n")
	b.WriteString(ListingHeader)
	for _, s := range skills {
		fmt.Fprintf(&b, "- %s: %s (%s)\n", s.Name, cut(s.Description, limit), s.Path)
	}
	b.WriteString("</available_skills>")
	return b.String()
}

// cut returns s cut to limit runes, the last of them an ellipsis; a
// negative limit returns s.
func cut(s string, limit int) string {
	if limit < 0 || utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:max(0, limit-1)]), " ") + "…"
}

// SearchNote is what the prompt says in place of a listing that does not
// fit its budget.
func SearchNote(n int) string {
	return fmt.Sprintf("<available_skills>\n%d skills hold instructions for particular tasks, too many to list here. Before a task that may have one (a file format, a workflow, a tool of this project), call skill_search with a few words of it, then activate_skill with the name found.\n</available_skills>", n)
}
