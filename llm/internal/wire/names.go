package wire

import "github.com/wieldhq/wield/schema"

// Names translates between wield's tool names and the names sent to an
// API that allows fewer characters ([schema.Names]). The zero value is
// ready to use; one Names serves one request and its reply.
type Names struct{ names schema.Names }

// Wire returns the API's form of name, the same each time it is asked.
func (m *Names) Wire(name string) (string, error) { return m.names.Add(name) }

// Original returns the wield name of a name the model used. A name the
// request never sent, which the model made up, comes back unchanged, so
// that the runner reports it as an unknown tool.
func (m *Names) Original(wire string) string {
	if name, ok := m.names.Original(wire); ok {
		return name
	}
	return wire
}
