package llm

import "testing"

func TestImage_Describe(t *testing.T) {
	tests := []struct {
		img  Image
		want string
	}{
		{Image{MIMEType: "image/png", Width: 1280, Height: 800}, "1280x800 png"},
		{Image{MIMEType: "image/jpeg"}, "jpeg"},
		{Image{MIMEType: "image/webp", Width: 5}, "webp"},
		{Image{}, "image"},
		{Image{MIMEType: "application/octet-stream", Width: 1, Height: 1}, "1x1 application/octet-stream"},
		{Image{MIMEType: "image/"}, "image/"},
	}
	for _, tt := range tests {
		if got := tt.img.Describe(); got != tt.want {
			t.Errorf("%+v.Describe() = %q, want %q", tt.img, got, tt.want)
		}
	}
}
