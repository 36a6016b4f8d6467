package askuser

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ParseAnswer reads a reply typed to q in a text interface. A reply made
// only of option numbers (1 to len(q.Options), separated by spaces or
// commas) chooses those options, each once, in the order typed; a reply
// equal to an option's label, ignoring case, chooses that option; any
// other reply is free text. ParseAnswer returns an error, saying what to
// type, for numbers out of range or for several numbers when q allows
// one choice; the interface should ask again. An empty reply is an empty
// Answer.
func ParseAnswer(q Question, reply string) (Answer, error) {
	reply = strings.TrimSpace(reply)
	if reply == "" || len(q.Options) == 0 {
		return Answer{Text: reply}, nil
	}
	for _, o := range q.Options {
		if strings.EqualFold(reply, strings.TrimSpace(o.Label)) {
			return Answer{Chosen: []string{o.Label}}, nil
		}
	}
	fields := strings.FieldsFunc(reply, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	if len(fields) == 0 {
		return Answer{Text: reply}, nil // only separators
	}
	nums := make([]int, 0, len(fields))
	for _, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil || f[0] == '+' || f[0] == '-' {
			return Answer{Text: reply}, nil // words: free text
		}
		nums = append(nums, n)
	}
	var a Answer
	for _, n := range nums {
		if n < 1 || n > len(q.Options) {
			return Answer{}, fmt.Errorf("%d is not an option: type a number from 1 to %d, or answer in words", n, len(q.Options))
		}
		label := q.Options[n-1].Label
		if !slices.Contains(a.Chosen, label) {
			a.Chosen = append(a.Chosen, label)
		}
	}
	if len(a.Chosen) > 1 && !q.Multiple {
		return Answer{}, fmt.Errorf("choose one option: type one number from 1 to %d, or answer in words", len(q.Options))
	}
	return a, nil
}
