package kafka

import (
	"sort"
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// kafkaJAASModule is the one login module of a Kafka client's sasl.jaas.config.
type kafkaJAASModule struct {
	class   string
	flag    string // required, requisite, sufficient or optional
	options map[string]string
}

func (m kafkaJAASModule) optionNames() string {
	names := make([]string, 0, len(m.options))
	for k := range m.options {
		names = append(names, k)
	}
	sort.Strings(names)
	return "[" + strings.Join(names, ", ") + "]"
}

// parseKafkaJAAS parses sasl.jaas.config as Kafka's JaasConfig does (a java.io.StreamTokenizer
// with // and /* */ comments, words of letters, digits and -_$., quoted strings with
// backslash escapes): `<LoginModuleClass> <flag> key=value ... ;`, exactly one module, with
// Kafka's IllegalArgumentException messages.
func parseKafkaJAAS(config string) (kafkaJAASModule, error) {
	toks := kafkaJAASTokens(config)
	var modules []kafkaJAASModule
	for i := 0; i < len(toks); {
		if toks[i].kind != jaasWord {
			return kafkaJAASModule{}, sparkerr.IllegalArgument("Unexpected %q in JAAS config", toks[i].text)
		}
		m := kafkaJAASModule{class: toks[i].text, options: map[string]string{}}
		i++
		if i >= len(toks) {
			return kafkaJAASModule{}, sparkerr.IllegalArgument("Login module control flag not specified in JAAS config")
		}
		switch f := strings.ToLower(toks[i].text); {
		case toks[i].kind == jaasWord && (f == "required" || f == "requisite" || f == "sufficient" || f == "optional"):
			m.flag = f
		default:
			return kafkaJAASModule{}, sparkerr.IllegalArgument("Invalid login module control flag '%s' in JAAS config", toks[i].text)
		}
		i++
		for i < len(toks) && toks[i].kind != jaasSemicolon {
			key := toks[i].text
			if i+2 >= len(toks) || toks[i+1].kind != jaasEquals ||
				(toks[i+2].kind != jaasWord && toks[i+2].kind != jaasQuoted) {
				return kafkaJAASModule{}, sparkerr.IllegalArgument("Value not specified for key '%s' in JAAS config", key)
			}
			m.options[key] = toks[i+2].text
			i += 3
		}
		if i >= len(toks) {
			return kafkaJAASModule{}, sparkerr.IllegalArgument("JAAS config entry not terminated by semi-colon")
		}
		i++ // ;
		modules = append(modules, m)
	}
	switch len(modules) {
	case 0:
		return kafkaJAASModule{}, sparkerr.IllegalArgument("JAAS config property does not contain any login modules")
	case 1:
		return modules[0], nil
	}
	return kafkaJAASModule{}, sparkerr.IllegalArgument("JAAS config property contains %d login modules, should be 1 module", len(modules))
}

type jaasTokenKind int

const (
	jaasWord jaasTokenKind = iota
	jaasQuoted
	jaasEquals
	jaasSemicolon
	jaasOther
)

type jaasToken struct {
	kind jaasTokenKind
	text string
}

func isJAASWordChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '_' || c == '$' || c == '.' || c >= 0x80
}

// kafkaJAASTokens splits a JAAS config into tokens.
func kafkaJAASTokens(s string) []jaasToken {
	var toks []jaasToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case strings.HasPrefix(s[i:], "//"):
			for i < len(s) && s[i] != '\n' && s[i] != '\r' {
				i++
			}
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				i = len(s)
			} else {
				i += end + 4
			}
		case c == '"' || c == '\'':
			var b strings.Builder
			j := i + 1
			for ; j < len(s) && s[j] != c && s[j] != '\n' && s[j] != '\r'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
					switch s[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					case 'r':
						b.WriteByte('\r')
					case 'b':
						b.WriteByte('\b')
					case 'f':
						b.WriteByte('\f')
					default:
						b.WriteByte(s[j])
					}
					continue
				}
				b.WriteByte(s[j])
			}
			toks = append(toks, jaasToken{jaasQuoted, b.String()})
			i = j + 1
		case c == '=':
			toks = append(toks, jaasToken{jaasEquals, "="})
			i++
		case c == ';':
			toks = append(toks, jaasToken{jaasSemicolon, ";"})
			i++
		case isJAASWordChar(c):
			j := i
			for j < len(s) && isJAASWordChar(s[j]) {
				j++
			}
			toks = append(toks, jaasToken{jaasWord, s[i:j]})
			i = j
		default:
			toks = append(toks, jaasToken{jaasOther, string(c)})
			i++
		}
	}
	return toks
}
