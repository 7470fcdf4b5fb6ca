package preprocess_test

import (
	"errors"
	"fmt"

	"github.com/neardup/neardup/preprocess"
)

func ExampleDecode() {
	// A GBK page behind a server's default "charset=ISO-8859-1": the <meta>
	// charset wins, since the header's single-byte charset does not fit.
	raw := []byte("<meta charset=\"gbk\"><p>\xbd\xfc\xcb\xc6\xd6\xd8\xb8\xb4\xcd\xf8\xd2\xb3</p>")
	text, cs, err := preprocess.Decode(raw, "text/html; charset=ISO-8859-1", true)
	fmt.Printf("%s %s from %s, %v\n", text[20:], cs.Name, cs.Source, err)

	// What is not text is refused, whatever the Content-Type says.
	for _, c := range []struct {
		ct  string
		raw []byte
	}{
		{"application/pdf", []byte("<p>looks like text</p>")},
		{"text/html", []byte("%PDF-1.7\n1 0 obj\n")},
		{"", []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03")},
	} {
		_, _, err := preprocess.Decode(c.raw, c.ct, true)
		fmt.Println(errors.Is(err, preprocess.ErrNotText), err)
	}
	// Output:
	// <p>近似重复网页</p> gbk from meta, <nil>
	// true preprocess: not text: media type application/pdf
	// true preprocess: not text: PDF data
	// true preprocess: not text: gzip data
}
