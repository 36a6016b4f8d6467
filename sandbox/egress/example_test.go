package egress_test

import (
	"fmt"

	"github.com/wieldhq/wield/sandbox/egress"
)

func ExampleAllowList() {
	l, err := egress.ParseAllowList([]string{"api.example.com", "*.GitHub.com", "bücher.example:8080"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l)
	for _, c := range []struct {
		host string
		port int
	}{
		{"api.example.com", 443},
		{"API.Example.com.", 80},
		{"www.api.example.com", 443},
		{"api.github.com", 443},
		{"github.com", 443},
		{"api.example.com", 8443},
		{"xn--bcher-kva.example", 8080},
	} {
		fmt.Printf("%s:%d %v\n", c.host, c.port, l.Allows(c.host, c.port))
	}
	// Output:
	// api.example.com, *.github.com, xn--bcher-kva.example:8080
	// api.example.com:443 true
	// API.Example.com.:80 true
	// www.api.example.com:443 false
	// api.github.com:443 true
	// github.com:443 false
	// api.example.com:8443 false
	// xn--bcher-kva.example:8080 true
}
