package redact_test

import (
	"fmt"

	"github.com/wieldhq/wield/internal/redact"
)

func ExampleReplace() {
	// A one-letter key is hidden only where it stands alone; a real key
	// wherever it occurs.
	secrets := []string{"x", "sk-live-4f9a2c7e"}
	fmt.Println(redact.Replace("script exhausted; key=x done", secrets, "[REDACTED]"))
	fmt.Println(redact.Replace("Bearer sk-live-4f9a2c7e, tail sk-live-4f9a2c7eZZ", secrets, "[REDACTED]"))
	// Output:
	// script exhausted; key=[REDACTED] done
	// Bearer [REDACTED], tail [REDACTED]ZZ
}
