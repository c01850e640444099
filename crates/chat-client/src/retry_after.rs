//! The `Retry-After` header in both its forms (RFC 9110 §10.2.3): delay seconds, or an HTTP date.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a server asks the client to wait, as of `now`: `value` is either a number of
/// seconds (`"120"`) or an HTTP date (`"Wed, 21 Oct 2015 07:28:00 GMT"`, or one of the two
/// obsolete forms RFC 9110 requires recipients to accept: RFC 850 `"Wednesday, 21-Oct-15
/// 07:28:00 GMT"` and asctime `"Wed Oct 21 07:28:00 2015"`). A date in the past means no wait.
/// Anything else is `None` (the header is then ignored, as if absent).
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use chat_client::parse_retry_after;
///
/// let now = UNIX_EPOCH + Duration::from_secs(1_445_412_470); // 2015-10-21 07:27:50 UTC
/// assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
/// assert_eq!(
///     parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now),
///     Some(Duration::from_secs(10))
/// );
/// assert_eq!(parse_retry_after("soon", now), None);
/// ```
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Digits only; a number too large for u64 is still "wait very long".
        return Some(Duration::from_secs(value.parse().unwrap_or(u64::MAX)));
    }
    let at = UNIX_EPOCH + Duration::from_secs(http_date_seconds(value)?);
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Seconds since the Unix epoch of an HTTP date in any of its three forms.
fn http_date_seconds(value: &str) -> Option<u64> {
    let fields: Vec<&str> = value.split_ascii_whitespace().collect();
    let (day, month, year, time) = match fields.as_slice() {
        // IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
        [weekday, day, month, year, time, "GMT"] if weekday.ends_with(',') => (
            day.parse().ok()?,
            month_number(month)?,
            year.parse().ok()?,
            *time,
        ),
        // RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT` (two-digit years: RFC 9110 says to read
        // a year more than 50 years ahead as the past century; servers sending it are from
        // the 1990s, so 70..=99 is 19xx and the rest 20xx).
        [weekday, date, time, "GMT"] if weekday.ends_with(',') => {
            let mut parts = date.split('-');
            let day = parts.next()?.parse().ok()?;
            let month = month_number(parts.next()?)?;
            let short: u64 = parts.next()?.parse().ok()?;
            if parts.next().is_some() || short > 99 {
                return None;
            }
            let year = if short >= 70 {
                1900 + short
            } else {
                2000 + short
            };
            (day, month, year, *time)
        }
        // asctime: `Sun Nov  6 08:49:37 1994`.
        [_weekday, month, day, time, year] => (
            day.parse().ok()?,
            month_number(month)?,
            year.parse().ok()?,
            *time,
        ),
        _ => return None,
    };
    let mut clock = time.split(':').map(|p| p.parse::<u64>().ok());
    let (h, m, s) = (clock.next()??, clock.next()??, clock.next()??);
    if clock.next().is_some() || h > 23 || m > 59 || s > 60 || !(1..=31).contains(&day) {
        return None;
    }
    let days = days_since_epoch(year, month, day)?;
    Some(days * 86_400 + h * 3_600 + m * 60 + s)
}

fn month_number(name: &str) -> Option<u64> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    MONTHS.iter().position(|m| *m == name).map(|i| i as u64 + 1)
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`);
/// `None` before the epoch.
fn days_since_epoch(year: u64, month: u64, day: u64) -> Option<u64> {
    if year < 1970 {
        return None;
    }
    let y = if month <= 2 { year - 1 } else { year };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe).checked_sub(719_468)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn seconds_form() {
        let now = at(1_000);
        assert_eq!(parse_retry_after("0", now), Some(Duration::ZERO));
        assert_eq!(
            parse_retry_after(" 120 ", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            parse_retry_after("99999999999999999999999", now),
            Some(Duration::from_secs(u64::MAX))
        );
        for bad in ["", "-1", "1.5", "+3", "12s", "soon"] {
            assert_eq!(parse_retry_after(bad, now), None, "{bad:?}");
        }
    }

    #[test]
    fn all_three_date_forms_name_the_same_instant() {
        // RFC 9110's example instant: 1994-11-06 08:49:37 UTC.
        let instant = 784_111_777;
        for form in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ] {
            assert_eq!(http_date_seconds(form), Some(instant), "{form}");
            assert_eq!(
                parse_retry_after(form, at(instant - 30)),
                Some(Duration::from_secs(30)),
                "{form}"
            );
        }
    }

    #[test]
    fn dates_in_the_past_mean_no_wait() {
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", at(2_000_000_000)),
            Some(Duration::ZERO)
        );
    }

    #[test]
    fn leap_years_and_month_ends() {
        assert_eq!(http_date_seconds("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(
            http_date_seconds("Thu, 29 Feb 2024 23:59:59 GMT"),
            Some(1_709_251_199)
        );
        assert_eq!(
            http_date_seconds("Fri, 01 Mar 2024 00:00:00 GMT"),
            Some(1_709_251_200)
        );
        assert_eq!(
            http_date_seconds("Tue, 01 Dec 2026 20:00:00 GMT"),
            Some(1_796_155_200)
        );
    }

    #[test]
    fn malformed_dates_are_ignored() {
        for bad in [
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 32 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:49 GMT",
            "Sun, 06 Nov 1969 08:49:37 GMT",
            "Sunday, 06-Nov-1994 08:49:37 GMT",
            "06 Nov 1994 08:49:37 GMT",
        ] {
            assert_eq!(http_date_seconds(bad), None, "{bad:?}");
        }
    }
}
