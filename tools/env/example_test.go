package env_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/env"
)

// Example_secret asks for a token: the model is told it is set, the
// session's tools can read it, and the journal hides it.
func Example_secret() {
	secrets := &session.SecretSet{}
	vars := &env.Vars{}
	asker := env.AskerFunc(func(_ context.Context, r env.Request) (env.Answer, error) {
		fmt.Printf("asked for %s (secret %v): %s\n", r.Name, r.Secret, r.Reason)
		return env.Answer{Value: "tok-0123456789"}, nil
	})
	request := env.RequestEnv(env.Config{Asker: asker, Vars: vars, Secrets: secrets})
	res, _ := request.Handler().Handle(context.Background(), &tool.Call{}, json.RawMessage(`{"name":"DEPLOY_TOKEN","reason":"the deploy script needs it"}`))
	fmt.Println(res.Output)
	fmt.Println(vars.Environ())
	fmt.Println(secrets.Redact("curl -H 'Authorization: tok-0123456789'"))
	// Output:
	// asked for DEPLOY_TOKEN (secret true): the deploy script needs it
	// The user set DEPLOY_TOKEN for this session to a secret; its value is not shown. The tools that need it receive it.
	// [DEPLOY_TOKEN=tok-0123456789]
	// curl -H 'Authorization: [REDACTED]'
}
