package plan_test

import (
	"fmt"

	"github.com/wieldhq/wield/tools/plan"
)

// exit_plan_mode names the plan file after the plan's first heading.
func ExampleSlug() {
	p := "# Add --plan to wield run\n\n1. flag\n2. stop tool\n"
	fmt.Println(plan.Dir("s1") + "/" + plan.Slug(p) + ".md")
	// Output: .wield/plans/s1/add-plan-to-wield-run.md
}
