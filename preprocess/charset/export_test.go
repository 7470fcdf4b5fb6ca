package charset

// The helpers the external tests check Decode's results against.
var (
	IsControl     = isControl
	TextMediaType = textMediaType
	UTF16Name     = utf16Name
)
