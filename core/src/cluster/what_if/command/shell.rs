//! Command lines split into words as a POSIX shell splits them, and words quoted back.

use super::WhatIfParseError;

/// Splits a command line into words as a POSIX shell does, without expanding anything:
/// `'...'` is literal, `"..."` keeps `\` only before `$`, `` ` ``, `"`, `\` and a newline,
/// a `\` outside quotes escapes the next character (and joins lines), and `#` at the start of
/// a word begins a comment. Unquoted shell operators are refused.
pub fn split_words(text: &str) -> Result<Vec<String>, WhatIfParseError> {
    let mut words = Vec::new();
    let mut word = String::new();
    // Whether a word has started (`''` is an empty word).
    let mut in_word = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' | '\r' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '#' if !in_word => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(WhatIfParseError::UnterminatedQuote { quote: "single", text: text.into() }),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some('\n') => {}
                            Some(c @ ('$' | '`' | '"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => {
                                return Err(WhatIfParseError::UnterminatedQuote { quote: "double", text: text.into() })
                            }
                        },
                        Some(c) => word.push(c),
                        None => return Err(WhatIfParseError::UnterminatedQuote { quote: "double", text: text.into() }),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(c) => {
                    in_word = true;
                    word.push(c);
                }
                None => {
                    in_word = true;
                    word.push('\\');
                }
            },
            '|' | '&' | ';' | '<' | '>' | '(' | ')' => return Err(WhatIfParseError::ShellOperator { operator: c }),
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// A word as a POSIX shell reads it back: bare when it needs no quoting, else single-quoted.
pub fn quote_word(word: &str) -> String {
    let bare = !word.is_empty()
        && !word.starts_with('#')
        && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=,@%+^".contains(c));
    if bare {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_like_a_shell() {
        // (input, words)
        let rows: &[(&str, &[&str])] = &[
            ("a  b\tc", &["a", "b", "c"]),
            ("'a b' \"c d\"", &["a b", "c d"]),
            ("''", &[""]),
            ("a'b'\"c\"", &["abc"]),
            ("\"a\\\"b\\$c\\d\"", &["a\"b$c\\d"]),
            ("'a\\b'", &["a\\b"]),
            ("a\\ b", &["a b"]),
            ("$HOME `x` ~ *", &["$HOME", "`x`", "~", "*"]),
            ("a #comment", &["a"]),
            ("a#b", &["a#b"]),
        ];
        for (input, want) in rows {
            assert_eq!(split_words(input).unwrap(), *want, "{input}");
        }
        for word in ["a", "", "a b", "it's", "x in (a)", "!x", "#x", "a=b,c"] {
            assert_eq!(split_words(&quote_word(word)).unwrap(), vec![word.to_string()], "{word}");
        }
    }
}
