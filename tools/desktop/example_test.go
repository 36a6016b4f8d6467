package desktop_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/desktop"
)

// ExampleNew starts a virtual screen of 1920x1080 on the first call and
// takes a screenshot, which the model sees at 1280x720.
func ExampleNew() {
	d, err := desktop.New(desktop.Config{Width: 1920, Height: 1080})
	if err != nil {
		panic(err)
	}
	defer d.Close()
	reg, err := tool.NewRegistry(d.Tool())
	if err != nil {
		panic(err)
	}
	res, err := tool.NewRunner(reg, nil).Call(context.Background(), tool.Call{},
		tool.Request{Name: "desktop", Arguments: json.RawMessage(`{"action":"screenshot"}`)})
	if err != nil {
		panic(err)
	}
	img := res.Images[0]
	fmt.Println(res.Success, img.MIMEType, img.Width, img.Height)
	// Output: true image/png 1280 720
}
