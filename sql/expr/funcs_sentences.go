package expr

import (
	"unicode"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// sentences(str[, lang[, country]]) as Spark's Sentences (ExpressionImplUtils.getSentences): the
// string split by java.text.BreakIterator's sentence instance, each sentence split by its word
// instance, keeping the words whose first UTF-16 unit is a letter or digit. The JDK's rule-based
// iterators (sun.text.resources.BreakIteratorRules; every locale but Thai uses them, so lang and
// country do not change the answer) are implemented below: a sentence ends after '!' or '?'
// (with following terminators, periods, closing punctuation and spaces), or after a period run
// followed by spaces and a letter that is not lowercase, or by spaces and opening punctuation or
// symbols before a letter; a word is letters with single inner dashes, connectors, apostrophes,
// quotes or periods, or digits with single inner periods, commas or quotes, words and numbers
// alternating, a number optionally with a currency sign or '#' before and '%' after it.

func init() {
	registerScalar(1, 3, bindSentences, "sentences")
}

func bindSentences(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, strType)
	if err != nil {
		return nil, err
	}
	t := sqltypes.ArrayType(sqltypes.ArrayType(strType, false), false)
	f := &rowFunc{name: name, args: cs, t: t, null: true, fn: func(_ *Context, a []any) (any, error) {
		s, ok := a[0].(string)
		if !ok {
			return nil, nil
		}
		return javaSentences(s), nil
	}}
	// Spark renders the defaults: sentences(str, , ).
	shown := args
	for len(shown) < 3 {
		shown = append(shown, NewLiteral("", strType))
	}
	f.str = callString(name, shown)
	return f, nil
}

// javaSentences splits s into sentences of words.
func javaSentences(s string) []any {
	r := []rune(s)
	out := []any{}
	for start := 0; start < len(r); {
		end := nextSentenceBreak(r, start)
		out = append(out, sentenceWords(r[start:end]))
		start = end
	}
	return out
}

func sentenceWords(r []rune) []any {
	words := []any{}
	for p := 0; p < len(r); {
		n := wordTokenLength(r, p)
		if c := r[p]; c <= 0xFFFF && (unicode.IsLetter(c) || unicode.IsDigit(c)) {
			words = append(words, string(r[p:p+n]))
		}
		p += n
	}
	return words
}

// Character classes of the JDK's sentence rules.

func sentSpace(c rune) bool {
	return c == '\t' || c == '\r' || c == '\f' || c == '\n' || c == '\u2028' || unicode.Is(unicode.Zs, c)
}
func sentStartPunct(c rune) bool {
	return c == '"' || c == '\'' || unicode.In(c, unicode.Ps, unicode.Pi)
}
func sentEnd(c rune) bool { return c == '"' || c == '\'' || unicode.In(c, unicode.Pe, unicode.Pf) }
func sentTerm(c rune) bool {
	return c == '!' || c == '?' || c == '\u3002' || c == '\uff01' || c == '\uff1f'
}
func sentPeriod(c rune) bool { return c == '.' || c == '\uff0e' }
func sentIgnore(c rune) bool { return unicode.In(c, unicode.Mn, unicode.Me, unicode.Cf) }
func sentDanda(c rune) bool  { return c == '\u0964' || c == '\u0965' }

// sentStart are the characters that may begin a sentence besides letters: anything the other
// classes do not name.
func sentStart(c rune) bool {
	return !unicode.IsLetter(c) && !sentSpace(c) && !sentStartPunct(c) && !sentEnd(c) && !unicode.IsNumber(c) &&
		!sentTerm(c) && !sentPeriod(c) && c != ',' && c != '\u2029' && !sentIgnore(c)
}

// nextSentenceBreak is the end of the sentence that starts at start (the JDK's forward rules:
// the first place one of them matches; the end of the text otherwise).
func nextSentenceBreak(r []rune, start int) int {
	n := len(r)
	skip := func(i int, in func(rune) bool) int {
		for i < n && in(r[i]) {
			i++
		}
		return i
	}
	for i := start; i < n; i++ {
		c := r[i]
		switch {
		case c == '\u2029':
			return i + 1
		case sentDanda(c):
			return skip(i+1, sentSpace)
		case sentTerm(c):
			j := skip(i+1, func(c rune) bool { return sentTerm(c) || sentPeriod(c) || sentEnd(c) })
			j = skip(j, sentSpace)
			if j < n && r[j] == '\u2029' {
				j++
			}
			return j
		case sentPeriod(c):
			j := skip(i+1, func(c rune) bool { return sentPeriod(c) || sentEnd(c) })
			k := skip(j, sentSpace)
			if k == n {
				continue
			}
			if k > j && unicode.IsLetter(r[k]) && !unicode.IsLower(r[k]) {
				return k
			}
			m := skip(k, func(c rune) bool { return sentStartPunct(c) || sentStart(c) })
			if m > k && m < n && unicode.IsLetter(r[m]) {
				return k
			}
		}
	}
	return n
}

// Character classes of the JDK's word rules.

func wordKanji(c rune) bool {
	return c == '\u3005' || c >= '\u4e00' && c <= '\u9fa5' || c >= '\uf900' && c <= '\ufa2d'
}
func wordKata(c rune) bool { return c >= '\u30a1' && c <= '\u30fa' || c == '\u30fd' || c == '\u30fe' }
func wordHira(c rune) bool { return c >= '\u3041' && c <= '\u3094' || c == '\u309d' || c == '\u309e' }
func wordCJKDiacrit(c rune) bool {
	return c >= '\u3099' && c <= '\u309c' || c == '\u30fb' || c == '\u30fc'
}
func wordEnclosing(c rune) bool { return unicode.In(c, unicode.Mn, unicode.Me) }
func wordLetter(c rune) bool {
	return (unicode.IsLetter(c) || unicode.Is(unicode.Mc, c)) && !wordKanji(c) && !wordKata(c) && !wordHira(c) && !wordCJKDiacrit(c)
}
func wordMid(c rune) bool {
	return c == '\u00ad' || c == '\u2027' || c == '"' || c == '\'' || c == '.' || unicode.In(c, unicode.Pd, unicode.Pc)
}
func wordMidNum(c rune) bool { return c == '"' || c == '\'' || c == ',' || c == '\u066b' || c == '.' }
func wordPreNum(c rune) bool {
	return (unicode.Is(unicode.Sc, c) || c == '#' || c == '.') && c != '\u00a2'
}
func wordPostNum(c rune) bool {
	return c == '%' || c == '&' || c == '\u00a2' || c == '\u066a' || c == '\u2030' || c == '\u2031'
}
func wordSpace(c rune) bool   { return c == '\t' || unicode.Is(unicode.Zs, c) }
func wordLineSep(c rune) bool { return c == '\n' || c == '\f' || c == '\u2028' || c == '\u2029' }

// runOf is the length of the run of in-characters at p, each followed by enclosing marks.
func runOf(r []rune, p int, in func(rune) bool) int {
	i := p
	for i < len(r) && in(r[i]) {
		i++
		for i < len(r) && wordEnclosing(r[i]) {
			i++
		}
	}
	return i - p
}

// matchSeparated is the length at p of a run of in-characters with single sep characters inside
// (each followed by more in-characters): the JDK's <word> and <number>.
func matchSeparated(r []rune, p int, in, sep func(rune) bool) int {
	i := p + runOf(r, p, in)
	if i == p {
		return 0
	}
	for i+1 < len(r) && sep(r[i]) {
		k := runOf(r, i+1, in)
		if k == 0 {
			break
		}
		i += 1 + k
	}
	if i < len(r) && sentDanda(r[i]) && in(r[p]) && wordLetter(r[p]) {
		i++ // a word may end with a danda
	}
	return i - p
}

func matchWord(r []rune, p int) int {
	return matchSeparated(r, p, wordLetter, wordMid)
}

func matchNumber(r []rune, p int) int {
	return matchSeparated(r, p, func(c rune) bool { return unicode.IsNumber(c) }, wordMidNum)
}

// numbersAndWords is the longest (number word)* {number {post-num}} at p.
func numbersAndWords(r []rune, p int) int {
	best, pos := 0, p
	for {
		n := matchNumber(r, pos)
		if n == 0 {
			return best
		}
		e := pos + n
		best = max(best, e-p)
		if e < len(r) && wordPostNum(r[e]) {
			best = max(best, e+1-p)
		}
		w := matchWord(r, e)
		if w == 0 {
			return best
		}
		pos = e + w
		best = max(best, pos-p)
	}
}

// wordTokenLength is the length of the word-iterator token at p: the longest match of the JDK's
// word rules, at least one character.
func wordTokenLength(r []rune, p int) int {
	best := 1
	// {word}(number word)*{number{post-num}}
	w := matchWord(r, p)
	best = max(best, w+numbersAndWords(r, p+w))
	// pre-num(number word)*{number{post-num}}
	if wordPreNum(r[p]) {
		best = max(best, 1+numbersAndWords(r, p+1))
	}
	// whitespace runs with an optional CR and line separator
	if i := p + runOf(r, p, wordSpace); i > p || r[p] == '\r' || wordLineSep(r[p]) {
		if i < len(r) && r[i] == '\r' {
			i++
		}
		if i < len(r) && wordLineSep(r[i]) {
			i++
		}
		best = max(best, i-p)
	}
	// runs of kanji, of katakana and of hiragana
	best = max(best, runOf(r, p, wordKanji))
	best = max(best, runOf(r, p, func(c rune) bool { return wordKata(c) || wordCJKDiacrit(c) }))
	best = max(best, runOf(r, p, func(c rune) bool { return wordHira(c) || wordCJKDiacrit(c) }))
	// anything else with its enclosing marks
	if i := p + 1; !unicode.In(r[p], unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
		for i < len(r) && wordEnclosing(r[i]) {
			i++
		}
		best = max(best, i-p)
	}
	return best
}
