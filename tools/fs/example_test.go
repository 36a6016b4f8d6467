package fs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/fs"
)

func ExampleTools() {
	for _, t := range fs.Tools(fs.Config{}) {
		fmt.Println(t.Name())
	}
	// Output:
	// read_file
	// read_many_files
	// list_directory
	// glob
	// search_file_content
	// replace
	// write_file
}

func ExampleNewSearch() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"), 0o644)
	root, _ := os.OpenRoot(dir)
	defer root.Close()

	args, _ := json.Marshal(fs.SearchInput{Pattern: `println\(`})
	res, err := fs.NewSearch(fs.Config{}).Handler().Handle(context.Background(), &tool.Call{Root: root}, args)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Output)
	// Output:
	// Found 1 matching line in 1 file for "println\\(" in .:
	// main.go
	// 2-
	// 3- func main() {
	// 4: 	println("hi")
	// 5- }
}
