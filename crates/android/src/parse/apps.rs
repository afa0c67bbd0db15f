//! Launchable apps from `cmd package query-activities -a android.intent.action.MAIN -c
//! android.intent.category.LAUNCHER`, and the launch component from `cmd package
//! resolve-activity --brief PKG`.
//!
//! Labels: the verbose listing carries `nonLocalizedLabel=` (set when the manifest
//! gives a literal label); nearly every real app uses a string resource there (`null`),
//! and no shell command prints a resolved label (`dumpsys package` does not either), so
//! those apps get a name read from the package name ([`readable_name`]: its last
//! meaningful segment, capitalised), at no extra round trip.

use mobile_device::App;

/// Parses the launcher activities into apps, one per package, in listing order.
/// Also accepts the `--brief` form (`pkg/activity` lines).
pub fn parse_launcher_apps(text: &str) -> Vec<App> {
    let mut apps: Vec<App> = Vec::new();
    let push = |pkg: &str, label: Option<&str>, apps: &mut Vec<App>| {
        if pkg.is_empty() {
            return;
        }
        if let Some(a) = apps.iter_mut().find(|a| a.package_name == pkg) {
            if let Some(l) = label
                && a.app_name == readable_name(pkg)
            {
                a.app_name = l.to_string();
            }
            return;
        }
        apps.push(App {
            package_name: pkg.to_string(),
            app_name: label
                .map(str::to_string)
                .unwrap_or_else(|| readable_name(pkg)),
        });
    };
    // Only the ActivityInfo block's first packageName/label pair describes the activity;
    // nested ApplicationInfo repeats the package, which dedup absorbs.
    let mut current: Option<String> = None;
    for line in super::lines(text) {
        let t = line.trim();
        if t.starts_with("Activity #") {
            current = None;
        } else if let Some(pkg) = t.strip_prefix("packageName=") {
            if current.is_none() {
                current = Some(pkg.trim().to_string());
                push(pkg.trim(), None, &mut apps);
            }
        } else if let Some(rest) = t.split_once("nonLocalizedLabel=").map(|(_, r)| r) {
            let label = rest.split(" icon=").next().unwrap_or("").trim();
            if let Some(pkg) = &current
                && !label.is_empty()
                && label != "null"
            {
                let pkg = pkg.clone();
                push(&pkg, Some(label), &mut apps);
            }
        } else if !t.contains('=')
            && !t.contains(' ')
            && let Some((pkg, _)) = t.split_once('/')
        {
            push(pkg, None, &mut apps);
        }
    }
    apps
}

/// Segments of package names that say nothing about the app.
const GENERIC: &[&str] = &[
    "com", "org", "net", "io", "android", "app", "apps", "mobile", "client", "google", "main",
    "free", "lite", "prod", "release",
];

/// A readable name for a package with no literal label: its last segment that is not
/// generic, split at `_` and capitalised (`com.google.android.apps.maps` is "Maps",
/// `com.android.chrome` "Chrome"); the package name when every segment is generic.
pub fn readable_name(pkg: &str) -> String {
    let Some(seg) = pkg
        .rsplit('.')
        .find(|s| !s.is_empty() && !GENERIC.contains(&s.to_ascii_lowercase().as_str()))
    else {
        return pkg.to_string();
    };
    seg.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The components (`pkg/activity`) of a `query-activities --brief` listing, in order.
pub fn parse_components(text: &str) -> Vec<String> {
    super::lines(text)
        .map(str::trim)
        .filter(|l| !l.contains(' ') && !l.contains('='))
        .filter(|l| {
            l.split_once('/').is_some_and(|(p, a)| {
                !p.is_empty()
                    && !a.is_empty()
                    && p.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
            })
        })
        .map(str::to_string)
        .collect()
}

/// The component (`pkg/.Activity`) from `resolve-activity --brief`, or `None` when the
/// package has no launcher activity ("No activity found").
pub fn parse_resolve_activity(text: &str) -> Option<String> {
    let last = super::lines(text)
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .last()?;
    let (pkg, act) = last.split_once('/')?;
    let ok = !pkg.is_empty()
        && !act.is_empty()
        && !last.contains(' ')
        && pkg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_');
    ok.then(|| last.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launcher_apps_from_capture() {
        let apps = parse_launcher_apps(include_str!(
            "../../../../fixtures/android/parser-query-activities.txt"
        ));
        let names: Vec<_> = apps
            .iter()
            .map(|a| (a.package_name.as_str(), a.app_name.as_str()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("com.android.settings", "Settings"),
                ("com.android.chrome", "Chrome"),
                ("mark.via.gp", "Via Browser"),
            ]
        );
        assert!(parse_launcher_apps("").is_empty());
        let brief =
            parse_launcher_apps("priority=0 preferredOrder=0\ncom.a/.Main\ncom.b/com.b.X\n");
        assert_eq!(brief.len(), 2);
    }

    #[test]
    fn readable_names() {
        assert_eq!(readable_name("com.google.android.apps.maps"), "Maps");
        assert_eq!(readable_name("com.example.notes"), "Notes");
        assert_eq!(readable_name("com.android"), "com.android");
        assert_eq!(readable_name("org.my_app.photo_editor"), "Photo Editor");
        let brief = "2 activities found:\n  Activity #0:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n    com.a/.Main\n  Activity #1:\n    priority=0 preferredOrder=0\n    com.a/.Quick\n";
        assert_eq!(parse_components(brief), vec!["com.a/.Main", "com.a/.Quick"]);
    }

    #[test]
    fn resolve_activity() {
        assert_eq!(
            parse_resolve_activity(include_str!(
                "../../../../fixtures/android/parser-resolve-activity.txt"
            ))
            .as_deref(),
            Some("com.android.settings/.Settings")
        );
        assert_eq!(parse_resolve_activity("No activity found\n"), None);
        assert_eq!(parse_resolve_activity(""), None);
    }

    #[test]
    fn real_query_activities_android14_emulator() {
        // A real `cmd package query-activities` listing (a VIEW query; the launcher query
        // prints the same blocks). The activity has no label line of its own and the
        // application's label is a resource, so the package name is the label.
        let apps = parse_launcher_apps(include_str!(
            "../../../../fixtures/android/parser-query-activities-real-chrome-api34.txt"
        ));
        assert_eq!(apps.len(), 1);
        assert_eq!(apps[0].package_name, "com.android.chrome");
        assert_eq!(apps[0].app_name, "Chrome");
    }

    #[test]
    fn real_resolve_activity_android12_projector() {
        assert_eq!(
            parse_resolve_activity(include_str!(
                "../../../../fixtures/android/parser-resolve-activity-real-xgimi.txt"
            ))
            .as_deref(),
            Some("com.xgimi.minitvfactory/.ui.MainFactoryMenuActivity")
        );
    }
}
