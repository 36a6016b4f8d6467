package tool

import (
	"reflect"
	"testing"
)

// TestCallHoldsOnlyFacts guards the rule that a Call carries the facts of
// one call and no dependencies: a field of interface or function type
// would let tools find their host's services at run time instead of
// receiving them at construction.
func TestCallHoldsOnlyFacts(t *testing.T) {
	typ := reflect.TypeFor[Call]()
	for f := range typ.Fields() {
		if !f.IsExported() {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			switch f.Type.Kind() {
			case reflect.Interface, reflect.Func, reflect.Map, reflect.Chan:
				t.Errorf("Call.%s has type %s: a Call holds facts of one call, not dependencies; give tools what they need when they are built", f.Name, f.Type)
			}
		})
	}
}
