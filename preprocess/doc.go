// Package preprocess turns a fetched web page into the text, sentences,
// tokens and term frequencies that every neardup detector reads.
//
// # Bad input
//
// A crawler sees every encoding and every broken byte; each kind of bad
// input gets a result or an error, never a panic:
//
//	empty page, white space, no visible text      ErrEmpty
//	stop words only                               a Page without terms (detectors: ErrNoFeatures)
//	larger than Options.MaxBytes (8 MiB)          ErrTooLarge, before any work
//	binary data, non-text media type              ErrNotText (errors.Is also matches ErrInvalidUTF8)
//	undecodable text (charset.MaxUndecodable)     ErrInvalidUTF8
//	invalid UTF-8 bytes in a UTF-8 page           each becomes U+FFFD
//	a page cut in mid-character                   the cut character becomes U+FFFD
//	legacy encoding, declared or not              decoded (charset.Decode: header, <meta>, detection)
//	wrong declared charset                        detection, when the declaration fails on the page
//	NUL and other control characters              spaces
//	markup soup, unclosed tags                    the HTML5 tokenizer's reading of it
//	script, style, template, comments only        ErrEmpty
//	one huge token                                dropped beyond Options.MaxTokenLen
//	megabytes of distinct words                   the first Options.MaxTerms counted, Tokens cut at Options.MaxTokens, Sentences and Blocks at a quarter of it
//
// It follows the preprocessing of the papers the method packages implement:
// document parsing, stop-word removal and stemming (Kumar and Govindarajulu
// §3.1), top-N keywords by frequency (Zaheer et al. §3.3-3.6), data cleaning,
// Porter stemming and lower-cased tokens (Khan et al. §3.1, Figs. 3-4).
//
// # Stages
//
// A Pipeline runs these stages in order; each is also exported on its own:
//
//  1. Input checks: len > Options.MaxBytes gives ErrTooLarge (ReadPage
//     reads one byte past the limit, no more); empty input gives ErrEmpty.
//  2. HTML or text: Process sniffs (a leading tag or a common tag in the first
//     KiB means HTML); ProcessContent takes it from the HTTP Content-Type
//     (text/html or text/plain skip the sniffing).
//  3. Decoding (package charset): what is not text is refused with
//     ErrNotText (a media type that is not text, a binary format's magic
//     number, compressed or random data, control bytes, implausible
//     UTF-16). The encoding is the byte-order mark's, else the Content-Type
//     charset (ProcessContent), a <meta> charset, UTF-8,
//     UTF-16 without a mark, or the most plausible legacy encoding; a
//     declared charset that the page belies gives way. Undecodable bytes
//     become U+FFFD, NUL and other control characters spaces; a page more
//     than charset.MaxUndecodable of which cannot be decoded gives
//     ErrInvalidUTF8.
//  4. Visible text (AppendHTMLText, AppendPlainText): the streaming
//     golang.org/x/net/html Tokenizer; script, style, noscript, template,
//     iframe, title and comments dropped; entities decoded; white space
//     collapsed; block elements become '\n'. No visible text gives ErrEmpty.
//     While extracting, the Pipeline follows the element stack to tell
//     what each line is (Page.Blocks: Content, Navigation, Header, Footer,
//     Aside, Form, Contents; see BlockKind).
//  5. Sentences (ScanSentences, a bufio.SplitFunc): . ! ? and 。！？ and the
//     other Unicode sentence terminators, line breaks; abbreviations,
//     decimals and section numbers do not split. Sentences without a letter
//     or digit are not kept.
//  6. Tokens (AppendTokens): Unicode letters and digits, lower-cased (ASCII
//     fast path); Han/Kana and Hangul runs become overlapping character
//     bigrams (a lone character a unigram); a script change ends a token.
//  7. Language: Options.Language, or DetectLanguage: mostly Han/Kana gives
//     zh or ja, Hangul ko; otherwise the language of SupportedLanguages
//     whose function words the page uses clearly more than any other's, or
//     Undetermined (too few words, code, two related languages alike),
//     whose words get English's stop list and stemmer.
//  8. Stop words (IsStopWord): the language's snowball list (English adds
//     contraction fragments and a few modals) or, for a language snowball
//     does not stem, its function words, plus Options.ExtraStopWords;
//     CJK unigrams of function characters (的 了 是 在 和 ...) and bigrams
//     made only of them. Latin words in zh/ja/ko pages use the English list.
//     Words shorter than MinTokenLen runes or longer than MaxTokenLen bytes
//     are dropped.
//  9. Stems: snowball (github.com/kljensen/snowball) for the seven languages
//     it has; words holding a digit and CJK n-grams are not stemmed. Stems
//     are memoised in a bounded cache owned by the Pipeline.
//  10. Terms: distinct tokens with counts, count descending then text
//     ascending; Page.Top(n) gives the top-n keywords.
//  11. Blocks: each line of the text holding a letter or digit, with the
//     range of Tokens it holds, its BlockKind and whether it lies inside
//     the element that marks the page's main content (Block.Main), so that
//     a detector can weigh or skip page furniture without tokenising the
//     text again.
//
// # Defaults
//
// The zero Options (and the zero Pipeline) detect the language per page,
// remove stop words, stem, keep word tokens of 2 runes to 64 bytes, accept
// pages up to DefaultMaxBytes (8 MiB) and remember up to DefaultStemCacheSize
// stems per language.
//
// # Concurrency and memory
//
// A Pipeline is safe for concurrent use; its only mutable state is the stem
// cache (sharded, lock-protected, bounded) and a sync.Pool of scratch
// buffers. There is no package-level mutable state. A Page is immutable:
// Sentences are sub-strings of Text, and equal tokens of one page share one
// string, so a page costs about its text plus one string header per token.
// docs/BENCHMARKS.md gives the throughput and the memory of huge pages.
package preprocess
