//! What matters to the speaker, said about the thing rather than about themself: "Family time
//! matters to me", "This necklace is super special to me", "Painting helps me relax", "Dance
//! is my passion", "Running has kept me going", "That song really speaks to me", "Gardening
//! brings me peace".
//!
//! Such a sentence has no first-person subject, so [`super::chat`] would pass it by; it says
//! what the speaker values, likes or relies on. The thing must be named: "It means a lot to
//! me" and "That's so special to me" answer the other person, and anything that addresses
//! them ("your support means a lot") is a reply.

use std::sync::OnceLock;

use regex::Regex;

/// Whether a sentence (lower-cased, after its openers) says what matters to its speaker.
pub fn matters(lower: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(concat!(
            r"^(?P<thing>[a-z0-9][a-z0-9 '&-]{2,60}?)",
            r"(?: (?:is|are|was|were|'s|has been|have been) (?:so |really |super |very |truly |",
            r"especially |extremely |pretty |incredibly |always )*(?:important|special|precious|",
            r"dear|meaningful|everything|the world|a big deal|a huge deal|sacred|close) to me\b",
            r"| (?:matters|mean|means|meant) (?:so much |a lot |the world |everything |a great deal |",
            r"a ton )?to me\b",
            r"| (?:helps|helped|lets|allows|allowed|keeps|kept) me (?:to )?[a-z]+",
            r"| (?:has|have) (?:really |always |truly |honestly )?(?:helped|kept|made|let) me [a-z]+",
            r"| (?:really |truly |always |honestly )?(?:speaks|spoke|has spoken) to me\b",
            r"| (?:has |have )?(?:really |truly |always )?(?:inspires|inspired|taught|teaches) me\b",
            r"| (?:brings|brought|gives|gave|has given|has brought) me (?:so much |a lot of |such |",
            r"real |great )?(?:joy|peace|hope|strength|comfort|purpose|energy|happiness|",
            r"confidence|courage|calm)\b",
            r"| (?:is|are|'s|has always been|was) (?:my|our) (?:biggest |greatest |true |real |",
            r"main |number one |#1 )?(?:passion|thing|go-to|favou?rite(?: [a-z]+)?|happy place|",
            r"escape|therapy|outlet|hobby|rock|everything|jam|calling|comfort|safe place)\b",
            r"| (?:is|are|'s) (?:a |the )?(?:huge |big |major |key )?part of (?:my|our) ",
            r"(?:life|lives|routine|identity|journey|week|day|family))"
        ))
        .expect("valid")
    });
    let Some(caps) = re.captures(lower) else {
        return false;
    };
    // "It really speaks to me": the adverb belongs to the verb, not to the thing.
    let mut thing = caps.name("thing").map_or("", |m| m.as_str()).trim();
    while let Some((rest, last)) = thing.rsplit_once(' ') {
        if !matches!(
            last,
            "really" | "truly" | "always" | "honestly" | "just" | "also" | "so"
        ) {
            break;
        }
        thing = rest.trim_end();
    }
    let first = thing.split_whitespace().next().unwrap_or("");
    let alone = thing.split_whitespace().count() == 1;
    let pointing = matches!(
        first,
        "it" | "that" | "this" | "these" | "those" | "what" | "which"
    ) && alone;
    let other = matches!(
        first,
        "your"
            | "you"
            | "he"
            | "she"
            | "they"
            | "his"
            | "her"
            | "their"
            | "it's"
            | "that's"
            | "everyone"
            | "everybody"
            | "people"
            | "nobody"
            | "someone"
    );
    // "gives me a visual … and keeps me organized": no thing, a clause about the speaker.
    let mine = thing
        .split_whitespace()
        .any(|w| matches!(w, "me" | "i" | "i'm" | "i've" | "we" | "us"));
    !thing.is_empty() && !pointing && !other && !mine
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn things_that_matter_to_the_speaker_are_named() {
        for s in [
            "family time matters to me",
            "this necklace is super special to me",
            "painting helps me relax after work",
            "dance is my passion",
            "gardening is a huge part of my life",
            "my grandma's ring means the world to me",
            "the support group has made me feel accepted",
            "dancing has kept me going through the stress",
            "contemporary dance is so expressive - it really speaks to me",
            "gardening brings me so much peace",
            "my grandpa's old guitar inspired me to write again",
        ] {
            assert!(matters(s), "{s}");
        }
        for s in [
            "it means a lot to me",
            "that's so special to me",
            "your support means a lot to me",
            "it helps me a lot",
            "this is my favorite",
            "he is my rock",
            "gives me a visual of my progress and keeps me organized",
            "it really speaks to me",
            "your story inspired me",
            "that has made me think",
        ] {
            assert!(!matters(s), "{s}");
        }
    }
}
