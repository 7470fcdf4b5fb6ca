// Package preprocess turns a fetched web page into the text, sentences,
// tokens and term frequencies that every neardup detector reads.
//
// It follows the preprocessing of the seed papers: document parsing, stop-word
// removal and stemming (seed 000 §3.1), top-N keywords by frequency (seed 002
// §3.3-3.6), data cleaning, Porter stemming and lower-cased tokens (seed 004
// §3.1, Figs. 3-4).
//
// # Stages
//
// A Pipeline runs these stages in order; each is also exported on its own:
//
//  1. Input checks: len > Options.MaxBytes gives ErrTooLarge; a UTF-8 BOM is
//     skipped; empty input gives ErrEmpty; invalid UTF-8 gives ErrInvalidUTF8
//     (HTML declaring ISO-8859-1/Windows-1252/US-ASCII is decoded instead).
//  2. HTML or text: Process sniffs (a leading tag or a common tag in the first
//     KiB means HTML); ProcessHTML and ProcessText skip the sniffing.
//  3. Visible text (AppendHTMLText, AppendPlainText): the streaming
//     golang.org/x/net/html Tokenizer; script, style, noscript, template,
//     iframe, title and comments dropped; entities decoded; white space
//     collapsed; block elements become '\n'. No visible text gives ErrEmpty.
//  4. Sentences (ScanSentences, a bufio.SplitFunc): . ! ? and 。！？ and the
//     other Unicode sentence terminators, line breaks; abbreviations,
//     decimals and section numbers do not split. Sentences without a letter
//     or digit are not kept.
//  5. Tokens (AppendTokens): Unicode letters and digits, lower-cased (ASCII
//     fast path); Han/Kana and Hangul runs become overlapping character
//     bigrams (a lone character a unigram); a script change ends a token.
//  6. Language: Options.Language, or DetectLanguage: mostly Han/Kana gives
//     zh or ja, Hangul ko; otherwise English unless another snowball language
//     (fr, es, ru, sv, no, hu) has clearly more stop-word hits.
//  7. Stop words (IsStopWord): the language's snowball list (English adds
//     contraction fragments and a few modals), plus Options.ExtraStopWords;
//     CJK unigrams of function characters (的 了 是 在 和 ...) and bigrams
//     made only of them. Latin words in zh/ja/ko pages use the English list.
//     Words shorter than MinTokenLen runes or longer than MaxTokenLen bytes
//     are dropped.
//  8. Stems: snowball (github.com/kljensen/snowball) for the seven languages
//     it has; words holding a digit and CJK n-grams are not stemmed. Stems
//     are memoised in a bounded cache owned by the Pipeline.
//  9. Terms: distinct tokens with counts, count descending then text
//     ascending; Page.Top(n) gives the top-n keywords.
//
// # Defaults
//
// The zero Options (and the zero Pipeline) detect the language per page,
// remove stop words, stem, keep word tokens of 2 runes to 64 bytes, accept pages up
// to DefaultMaxBytes (8 MiB) and remember up to DefaultStemCacheSize stems
// per language.
//
// # Concurrency and memory
//
// A Pipeline is safe for concurrent use; its only mutable state is the stem
// cache (sharded, lock-protected, bounded) and a sync.Pool of scratch
// buffers. There is no package-level mutable state. A Page is immutable:
// Sentences are sub-strings of Text, and equal tokens of one page share one
// string, so a page costs about its text plus one string header per token.
//
// Performance: about 60-70 MB/s of HTML per core on the English and Chinese
// pages of BenchmarkPreprocessHTML (2-core shared machine, noisy). About half
// the time is spent in the golang.org/x/net/html tokenizer, which also makes
// nearly all of the allocations (one per attribute of every start tag).
package preprocess
