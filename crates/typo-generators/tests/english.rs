//! The shipped English defaults do what their tables say.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use typo_generators::{Data, Keyboard, Registry};

fn expect(registry: &Registry, id: &str, input: &str) -> Vec<String> {
    registry
        .get(id)
        .unwrap()
        .expect(input)
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn english_registers_every_task() {
    let registry = Registry::new(&Data::english());
    assert_eq!(registry.len(), 22);
    assert!(registry.unregistered().is_empty());
}

#[test]
fn english_tables_answer() {
    let r = Registry::new(&Data::english());
    assert!(expect(&r, "hs", "their.com").contains(&"there.com".to_owned()));
    assert!(expect(&r, "cm", "recieve.com").contains(&"receive.com".to_owned()));
    assert_eq!(expect(&r, "cns", "1password.com"), ["onepassword.com"]);
    assert_eq!(expect(&r, "ons", "1password.com"), ["firstpassword.com"]);
    assert_eq!(
        expect(&r, "cns", "onetwo.com"),
        ["12.com", "1two.com", "one2.com"]
    );
    assert!(expect(&r, "hr", "paypal.com").contains(&"pаypal.com".to_owned())); // Cyrillic а
    assert_eq!(expect(&r, "gr", "a").len(), 25);
    assert_eq!(expect(&r, "vs", "a.b"), ["e.b", "i.b", "o.b", "u.b"]);
}

#[test]
fn every_named_layout_drives_the_keyboard_tasks() {
    for name in Keyboard::NAMES {
        let data = Data::english().with_keyboard(Keyboard::by_name(name).unwrap());
        let r = Registry::new(&data);
        assert!(!expect(&r, "acs", "example").is_empty(), "{name}");
    }
    let azerty =
        Registry::new(&Data::english().with_keyboard(Keyboard::by_name("azerty").unwrap()));
    assert_eq!(expect(&azerty, "acs", "q"), ["a", "s", "w"]);
}
