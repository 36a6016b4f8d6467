package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeCases are messages both decoders must read alike.
var decodeCases = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
	`{"jsonrpc":"2.0","id":"abc","method":"ping"}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":null}`,
	`{"jsonrpc":"2.0","id":2.0,"method":""}`,
	`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
	`{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"no such method","data":{"x":1}}}`,
	`{"jsonrpc":"2.0","id":9,"result":null}`,
	`{"jsonrpc":"2.0","id":null,"method":"x"}`,
	`{"jsonrpc":"2.0","Method":"x","id":1}`,
	`{"jsonrpc":"2.0","method":"a","method":"b"}`,
	`{"jsonrpc":"1.0","id":1,"method":"x"}`,
	`{"id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":{},"method":"x"}`,
	`{"jsonrpc":"2.0","id":[1],"result":1}`,
	`{"jsonrpc":"2.0","result":1}`,
	`{"jsonrpc":"2.0","id":1,"method":5}`,
	`{"jsonrpc":"2.0","id":1,"error":"bad"}`,
	`null`,
	`[]`,
	`{"jsonrpc":"2.0"`,
	`{}`,
	`{"jsonrpc":"2.0","id":0 }0`,
	`{"jsonrpc":"2.0","id":0,"error":{"Code":1,"message":""}}`,
	`{"jsonrpc":"2.0","id":0,"error":{"code":1,"message":"m","data":null}}`,
}

// TestDecodeMessageMatchesSDK checks decodeMessage against
// jsonrpc.DecodeMessage, which it replaces for speed.
func TestDecodeMessageMatchesSDK(t *testing.T) {
	for _, in := range decodeCases {
		t.Run(in, func(t *testing.T) { compareDecoders(t, []byte(in)) })
	}
}

func compareDecoders(t *testing.T, in []byte) {
	want, wantErr := jsonrpc.DecodeMessage(in)
	got, gotErr := decodeMessage(in)
	if gotErr != nil && wantErr == nil && !json.Valid(in) {
		// Stricter than go-sdk's stream decoder, which ignores what
		// follows the first JSON value.
		return
	}
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("decodeMessage(%s) error = %v, go-sdk's = %v", in, gotErr, wantErr)
	}
	if wantErr != nil {
		return
	}
	if !reflect.DeepEqual(canonical(t, got), canonical(t, want)) {
		t.Errorf("decodeMessage(%s) = %s, go-sdk's = %s", in, canonical(t, got), canonical(t, want))
	}
}

// canonical is a message's encoding with its raw JSON compacted.
func canonical(t *testing.T, m jsonrpc.Message) string {
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func FuzzDecodeMessage(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		compareDecoders(t, in)
	})
}

func BenchmarkDecodeMessage(b *testing.B) {
	in := []byte(decodeCases[0])
	b.Run("wield", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeMessage(in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("go-sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jsonrpc.DecodeMessage(in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
