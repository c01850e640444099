//! The candidate predicates over a text: length bins, character classes and tokens.
//!
//! Every predicate is a pure function of the clean text (labels are added by the scan), so a
//! text's predicates are the same whichever stage's line carries it.

/// The length bins, in characters (Unicode scalar values): upper limits, inclusive; a text
/// longer than the last is in `>160`.
pub const LENGTH_BINS: [(usize, &str); 4] = [
    (20, "length:<=20"),
    (40, "length:21-40"),
    (80, "length:41-80"),
    (160, "length:81-160"),
];

/// The name of the last length bin.
pub const LENGTH_OVER: &str = "length:>160";

/// The character-class predicates, in the order of [`classes`]'s result.
pub const CLASSES: [&str; 5] = [
    "has:digit",
    "has:non_ascii",
    "has:upper_word",
    "has:exclamation",
    "has:emoji",
];

/// The fixed predicates (length bins, then character classes): their names, in id order.
pub fn fixed_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = LENGTH_BINS.iter().map(|(_, n)| *n).collect();
    names.push(LENGTH_OVER);
    names.extend(CLASSES);
    names
}

/// The index (into [`fixed_names`]) of the length bin of `text`.
pub fn length_bin(text: &str) -> usize {
    let chars = text.chars().count();
    LENGTH_BINS
        .iter()
        .position(|(limit, _)| chars <= *limit)
        .unwrap_or(LENGTH_BINS.len())
}

/// Whether a character is an emoji for `has:emoji`: the blocks U+1F300–U+1FAFF (pictographs,
/// emoticons, transport, supplemental symbols; not the older dingbats, so the rule stays one
/// range anyone can check).
pub fn is_emoji(c: char) -> bool {
    ('\u{1F300}'..='\u{1FAFF}').contains(&c)
}

/// The character classes of `text`, in [`CLASSES`] order: an ASCII digit `0`–`9`, a non-ASCII
/// character, an uppercase word (a word
/// of [`words`] with at least two letters, every letter uppercase: `NOT`, `GOOD`), a `!`, an
/// emoji ([`is_emoji`]).
pub fn classes(text: &str) -> [bool; 5] {
    let digit = text.chars().any(|c| c.is_ascii_digit());
    let non_ascii = !text.is_ascii();
    let upper_word = words(text).any(|w| {
        let letters = w.chars().filter(|c| c.is_alphabetic()).count();
        letters >= 2
            && w.chars()
                .filter(|c| c.is_alphabetic())
                .all(char::is_uppercase)
    });
    [
        digit,
        non_ascii,
        upper_word,
        text.contains('!'),
        text.chars().any(is_emoji),
    ]
}

/// The words of `text` as written: maximal runs of alphanumeric characters
/// (`char::is_alphanumeric`, Unicode-aware), everything else a separator. So `don't` is
/// `don` and `t`, `e-mail` is `e` and `mail`, and a script without spaces between words
/// (Chinese, Thai) is one word per run.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// The distinct tokens of `text`: its [`words`], lowercased (`str::to_lowercase`, Unicode),
/// sorted and deduplicated (a token counts once per text).
pub fn tokens(text: &str) -> Vec<String> {
    let mut tokens: Vec<String> = words(text).map(str::to_lowercase).collect();
    tokens.sort_unstable();
    tokens.dedup();
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_bins_are_inclusive_upper_limits_in_characters() {
        let names = fixed_names();
        let bin = |n: usize| names[length_bin(&"é".repeat(n))];
        assert_eq!(bin(0), "length:<=20");
        assert_eq!(bin(20), "length:<=20");
        assert_eq!(bin(21), "length:21-40");
        assert_eq!(bin(40), "length:21-40");
        assert_eq!(bin(41), "length:41-80");
        assert_eq!(bin(80), "length:41-80");
        assert_eq!(bin(81), "length:81-160");
        assert_eq!(bin(160), "length:81-160");
        assert_eq!(bin(161), "length:>160");
    }

    #[test]
    fn tokens_are_lowercased_alphanumeric_runs_counted_once() {
        assert_eq!(
            tokens("Don't STOP, don't — Straße 42!"),
            ["42", "don", "stop", "straße", "t"]
        );
        assert_eq!(tokens("  ,;  "), Vec::<String>::new());
        assert_eq!(tokens("Ünïcode ÜNÏCODE"), ["ünïcode"]);
    }

    #[test]
    fn character_classes() {
        assert_eq!(classes("plain text"), [false; 5]);
        assert_eq!(classes("room 42"), [true, false, false, false, false]);
        assert_eq!(classes("café"), [false, true, false, false, false]);
        assert_eq!(
            classes("this is NOT good"),
            [false, false, true, false, false]
        );
        // One capital letter is not an uppercase word; neither is a lone "I".
        assert_eq!(classes("I said A thing"), [false; 5]);
        assert_eq!(classes("wow!"), [false, false, false, true, false]);
        assert_eq!(classes("nice 🎉"), [false, true, false, false, true]);
        // U+2764 (a dingbat heart) is outside the emoji range.
        assert_eq!(classes("\u{2764}"), [false, true, false, false, false]);
        assert_eq!(classes("R2D2"), [true, false, true, false, false]);
    }
}
