//! What happens to the phone: activities starting and stopping, navigation, typing, element
//! actions and crashes, as methods on [`PhoneState`].

use super::*;

impl PhoneState {
    /// Appends a log line stamped now.
    pub fn log(&mut self, level: char, tag: &str, message: &str) {
        self.logcat.push(LogLine {
            time_ms: now_ms(),
            pid: 1234,
            tid: 1234,
            level,
            tag: tag.to_string(),
            message: message.to_string(),
        });
        if self.logcat.len() > 5000 {
            let excess = self.logcat.len() - 5000;
            self.logcat.drain(..excess);
        }
    }

    /// Resolves `.Act` / `Act` / full names against a package.
    pub fn resolve_activity(&self, package: &str, activity: &str) -> String {
        if let Some(rest) = activity.strip_prefix('.') {
            format!("{package}.{rest}")
        } else if !activity.contains('.') {
            format!("{package}.{activity}")
        } else {
            activity.to_string()
        }
    }

    /// Puts `package`'s `activity` (or its launcher activity) in the foreground.
    /// Returns the full activity name, or an error message like `am` prints.
    pub fn start_activity(
        &mut self,
        package: &str,
        activity: Option<&str>,
    ) -> Result<String, String> {
        let Some(pkg) = self.packages.get(package) else {
            return Err(format!(
                "Error type 3\nError: Activity class {{{package}/{}}} does not exist.",
                activity.unwrap_or("")
            ));
        };
        let activity = match activity {
            Some(a) => self.resolve_activity(package, a),
            None => match &pkg.launcher_activity {
                Some(a) => a.clone(),
                None => return Err(format!("Error: no launcher activity in {package}")),
            },
        };
        if !pkg.activities.contains(&activity) {
            return Err(format!(
                "Error type 3\nError: Activity class {{{package}/{activity}}} does not exist."
            ));
        }
        let screen = if pkg.launcher_activity.as_deref() == Some(activity.as_str()) {
            pkg.main_screen.clone()
        } else {
            pkg.screens
                .iter()
                .find(|(_, s)| s.activity == activity)
                .map(|(n, _)| n.clone())
                .unwrap_or_else(|| pkg.main_screen.clone())
        };
        // A launcher alias (Chrome's `…chrome.Main`) resolves to the activity that shows the
        // screen, which is what dumpsys then reports.
        let activity = pkg
            .screens
            .get(&screen)
            .map(|s| s.activity.clone())
            .filter(|a| !a.is_empty())
            .unwrap_or(activity);
        if package == LAUNCHER_PACKAGE {
            self.go_home();
            return Ok(activity);
        }
        // Bring the app's task to the front with this activity on top.
        let task = self
            .stack
            .iter()
            .find(|f| f.package == package)
            .map(|f| f.task)
            .unwrap_or_else(|| {
                self.next_task += 1;
                self.next_task
            });
        self.stack.retain(|f| f.package != package);
        self.stack.push(Frame {
            package: package.to_string(),
            activity: activity.clone(),
            screen,
            focused: None,
            task,
            scroll: 0,
            dialog: None,
            intent: None,
        });
        let comp = short_component(package, &activity);
        self.log(
            'I',
            "ActivityTaskManager",
            &format!("START u0 {{flg=0x10000000 cmp={comp}}} from uid 2000"),
        );
        Ok(activity)
    }

    /// HOME: the launcher alone on the stack.
    pub fn go_home(&mut self) {
        self.stack.retain(|f| f.package == LAUNCHER_PACKAGE);
        if self.stack.is_empty() {
            self.stack.push(launcher_frame());
        }
        self.stack.truncate(1);
        if let Some(f) = self.stack.last_mut() {
            f.focused = None;
        }
    }

    /// BACK: pop one frame (never the launcher).
    pub fn go_back(&mut self) {
        if self.dismiss_dialog() {
            // A dialog in front takes BACK first (`Dialog.onBackPressed` cancels it).
            return;
        }
        if let Some(f) = self.stack.last_mut()
            && f.focused.take().is_some()
            && f.package != LAUNCHER_PACKAGE
        {
            // First BACK closes the keyboard, like a real IME.
            return;
        }
        if self.stack.len() > 1 {
            self.stack.pop();
        }
        if self.stack.is_empty() {
            self.stack.push(launcher_frame());
        }
    }

    /// `am force-stop`.
    pub fn force_stop(&mut self, package: &str) {
        if package == LAUNCHER_PACKAGE {
            return;
        }
        let was = self.stack.iter().any(|f| f.package == package);
        self.stack.retain(|f| f.package != package);
        if self.stack.is_empty() {
            self.stack.push(launcher_frame());
        }
        if was {
            self.log(
                'I',
                "ActivityManager",
                &format!("Force stopping {package} appid=10123 user=0: from pid 4242"),
            );
        }
    }

    /// Navigates inside the foreground app.
    pub fn navigate(&mut self, screen: &str) {
        let Some(top) = self.stack.last().cloned() else {
            return;
        };
        let Some(pkg) = self.packages.get(&top.package) else {
            return;
        };
        let Some(target) = pkg.screens.get(screen) else {
            return;
        };
        // Going to a screen already below on the stack pops back to it.
        if let Some(i) = self
            .stack
            .iter()
            .rposition(|f| f.package == top.package && f.screen == screen)
        {
            self.stack.truncate(i + 1);
            if let Some(f) = self.stack.last_mut() {
                f.focused = None;
            }
            return;
        }
        let activity = target.activity.clone();
        self.stack.push(Frame {
            package: top.package.clone(),
            activity,
            screen: screen.to_string(),
            focused: None,
            task: top.task,
            scroll: 0,
            dialog: None,
            intent: None,
        });
    }

    /// Types `text` into the focused field. Returns false when no field is focused (or the
    /// keyguard is in front).
    pub fn type_text(&mut self, text: &str) -> bool {
        // The keyguard's window has the input focus: nothing reaches the app's field.
        if self.profile.keyguard {
            return false;
        }
        let Some(id) = self.stack.last().and_then(|f| f.focused.clone()) else {
            return false;
        };
        match self
            .current_screen_mut()
            .and_then(|s| find_element_mut(s, &id))
        {
            Some(e) => {
                e.text.push_str(text);
                true
            }
            None => false,
        }
    }

    /// Runs an element's action.
    pub fn run_action(&mut self, action: &Action, element_key: &str) {
        crate::living::on_action(self, element_key);
        match action {
            Action::Navigate { screen } => self.navigate(screen),
            Action::Back => self.go_back(),
            Action::Launch { package } => {
                let _ = self.start_activity(package, None);
            }
            Action::Crash { exception } => self.crash_foreground(exception),
            Action::ShowDialog { dialog } => self.show_dialog(dialog),
            Action::Remove { screen, ids } => {
                let package = self.foreground_package().map(str::to_string);
                if let Some(s) = package.and_then(|p| self.app_screen_mut(&p, screen)) {
                    s.elements.retain(|e| !ids.contains(&e.resource_id));
                }
            }
            Action::Toggle => {
                if let Some(e) = self
                    .current_screen_mut()
                    .and_then(|s| find_element_mut(s, element_key))
                {
                    e.checked = !e.checked;
                }
            }
            Action::Submit { field, to, prefix } => {
                let text = self
                    .current_screen_mut()
                    .and_then(|s| find_element_mut(s, field))
                    .map(|e| std::mem::take(&mut e.text))
                    .unwrap_or_default();
                if let Some(f) = self.stack.last_mut() {
                    f.focused = None;
                }
                let Some(top) = self.stack.last().cloned() else {
                    return;
                };
                if !text.is_empty()
                    && let Some(screen) = self.app_screen_mut(&top.package, to)
                {
                    let id = format!("{}:id/item", top.package);
                    screen
                        .elements
                        .push(Element::new(ElementKind::Text, &format!("{prefix}{text}")).id(&id));
                }
                self.navigate(to);
            }
        }
    }

    /// Crashes the foreground app with `exception` (see [`Action::Crash`]).
    pub fn crash_foreground(&mut self, exception: &str) {
        let Some(top) = self.stack.last().cloned() else {
            return;
        };
        if top.package == LAUNCHER_PACKAGE {
            return;
        }
        let uid = self
            .packages
            .get(&top.package)
            .map(|p| p.uid)
            .unwrap_or(10000);
        let pid = crate::commands::app_pid(uid);
        let now = now_ms();
        let class = top
            .activity
            .rsplit('.')
            .next()
            .unwrap_or("MainActivity")
            .to_string();
        let lines = [
            "FATAL EXCEPTION: main".to_string(),
            format!("Process: {}, PID: {pid}", top.package),
            exception.to_string(),
            format!("\tat {}.onClick({class}.java:57)", top.activity),
            "\tat android.view.View.performClick(View.java:7659)".to_string(),
            "\tat android.os.Handler.handleCallback(Handler.java:958)".to_string(),
        ];
        for message in lines {
            let line = LogLine {
                time_ms: now,
                pid,
                tid: pid,
                level: 'E',
                tag: "AndroidRuntime".into(),
                message,
            };
            self.crash_log.push(line.clone());
            self.logcat.push(line);
        }
        self.stack.retain(|f| f.package != top.package);
        if self.stack.is_empty() {
            self.stack.push(launcher_frame());
        }
        self.log(
            'I',
            "ActivityManager",
            &format!("Process {} (pid {pid}) has died: fg  TOP ", top.package),
        );
    }

    /// Focuses the element with `key` on the current screen.
    pub fn focus(&mut self, key: Option<String>) {
        if let Some(f) = self.stack.last_mut() {
            f.focused = key;
        }
    }
}
