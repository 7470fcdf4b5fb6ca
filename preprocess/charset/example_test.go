package charset_test

import (
	"errors"
	"fmt"

	"github.com/neardup/neardup/preprocess/charset"
)

func ExampleDecode() {
	// A GBK page behind a server's default "charset=ISO-8859-1": the <meta>
	// charset wins, since the header's single-byte charset does not fit.
	raw := []byte("<meta charset=\"gbk\"><p>\xbd\xfc\xcb\xc6\xd6\xd8\xb8\xb4\xcd\xf8\xd2\xb3</p>")
	text, cs, err := charset.Decode(raw, "text/html; charset=ISO-8859-1", true)
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
		_, _, err := charset.Decode(c.raw, c.ct, true)
		fmt.Println(errors.Is(err, charset.ErrNotText), err)
	}
	// Output:
	// <p>近似重复网页</p> gbk from meta, <nil>
	// true charset: not text: media type application/pdf
	// true charset: not text: PDF data
	// true charset: not text: gzip data
}
