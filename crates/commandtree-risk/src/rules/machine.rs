//! The machine itself: its disks (overwriting, formatting, wiping), its power, its user
//! accounts and crontab, and its processes (a fork bomb).

use super::paths::{is_block_device, windows_path};
use super::{Family, Reach, Rule};
use crate::Level;
use crate::shell::{Analyser, Cmd};
use tree_sitter::Node;

family_rule!(Family::Machine, Reach::Machine);

pub(crate) const OVERWRITES_DISK: Rule = rule(
    "overwrites-disk",
    Level::Danger,
    "`dd of=/dev/sda`, a redirect into a block device",
    "overwrites the disk {}",
    "dd if=image.iso of=/dev/sdb bs=4M",
);
pub(crate) const FORMATS_DISK: Rule = rule(
    "formats-disk",
    Level::Danger,
    "`mkfs`, `mkswap`, `fdisk`, `parted`, `wipefs`, `diskutil`, …",
    "formats or repartitions a disk ({})",
    "fdisk /dev/sda",
);
pub(crate) const FORMATS_DRIVE: Rule = rule(
    "formats-drive",
    Level::Danger,
    "Windows' `format C:`",
    "formats a disk (format)",
    "format D:",
);
pub(crate) const FORMATS_WITH: Rule = rule(
    "formats-with-mkfs",
    Level::Danger,
    "`mkfs.ext4`, `mkfs.vfat`, …",
    "formats a disk ({})",
    "mkfs.ext4 /dev/sdb1",
);
pub(crate) const WIPES_DISK: Rule = rule(
    "wipes-disk",
    Level::Danger,
    "`shred` of a block device",
    "wipes a disk (shred)",
    "shred -n 1 /dev/sdb",
);
pub(crate) const SHUTS_DOWN: Rule = rule(
    "shuts-down",
    Level::Danger,
    "`shutdown`, `reboot`, `halt`, `poweroff`",
    "shuts the machine down ({})",
    "sudo reboot",
);
pub(crate) const USER_ACCOUNTS: Rule = rule(
    "user-accounts",
    Level::Caution,
    "`useradd`, `usermod`, `groupadd`, `passwd`, `chsh`, `userdel` without `-r`, …",
    "changes the machine's user accounts ({})",
    "useradd builder",
);
pub(crate) const DELETES_USER: Rule = rule(
    "deletes-user",
    Level::Danger,
    "`userdel -r`, `deluser --remove-home`",
    "deletes a user account and its home folder ({})",
    "userdel -r builder",
);
pub(crate) const CRONTAB: Rule = rule(
    "crontab",
    Level::Caution,
    "`crontab FILE`, `crontab -r` (not `-l`)",
    "replaces the user's crontab",
    "crontab jobs.txt",
);
pub(crate) const SERVICES: Rule = rule(
    "system-services",
    Level::Caution,
    "`systemctl restart`, `service x stop`, `launchctl load`, `rc-service`, `rc-update` (not \
     status or listing)",
    "starts, stops or changes a system service ({})",
    "service nginx restart",
);
pub(crate) const NETWORK: Rule = rule(
    "network-config",
    Level::Caution,
    "`ip route add`, `ip neigh flush`, `iptables -A`, `nft add`, `ufw allow`, `sysctl -w`",
    "changes the machine's network or kernel settings ({})",
    "ip -s -s neigh flush all",
);
pub(crate) const FORK_BOMB: Rule = rule(
    "fork-bomb",
    Level::Danger,
    "a function that pipes into itself (`:(){ :|:& };:`)",
    "a fork bomb: exhausts the machine's processes",
    ":(){ :|:& };:",
);

pub(crate) const STARTS_SCHEDULER: Rule = rule(
    "starts-system-scheduler",
    Level::Caution,
    "`cron -f`, `anacron -s`, `runsvdir /etc/service`: the machine's scheduler or supervisor",
    "starts the machine's {} (its system-wide jobs or services; needs root)",
    "exec cron -f",
);

impl Analyser<'_> {
    pub(crate) fn machine(&mut self, c: &Cmd) {
        let args = c.arg_texts();
        let name = c.name.as_str();
        match name {
            // A container's service scripts run on the host: its scheduler then runs the
            // machine's own jobs, its supervisor the machine's services.
            "cron" | "crond" | "anacron" | "atd" | "runsvdir" => {
                self.hit(&STARTS_SCHEDULER, c.line, &c.snippet, &[name]);
            }
            "dd" => {
                if let Some(dev) = args
                    .iter()
                    .find_map(|a| a.strip_prefix("of="))
                    .filter(|d| is_block_device(d))
                {
                    let dev = dev.to_string();
                    self.hit(&OVERWRITES_DISK, c.line, &c.snippet, &[&dev]);
                }
            }
            "mkfs" | "mke2fs" | "mkswap" | "fdisk" | "sfdisk" | "gdisk" | "sgdisk" | "parted"
            | "wipefs" | "blkdiscard" | "diskutil" => {
                self.hit(&FORMATS_DISK, c.line, &c.snippet, &[name]);
            }
            // Windows' `format C:`; the same word is many tools' subcommand, never a program.
            "format"
                if args
                    .iter()
                    .any(|a| windows_path(&format!("{a}/")).is_some()) =>
            {
                self.hit(&FORMATS_DRIVE, c.line, &c.snippet, &[]);
            }
            n if n.starts_with("mkfs.") => {
                self.hit(&FORMATS_WITH, c.line, &c.snippet, &[n]);
            }
            "shred" if args.iter().any(|a| is_block_device(a)) => {
                self.hit(&WIPES_DISK, c.line, &c.snippet, &[]);
            }
            "shutdown" | "reboot" | "halt" | "poweroff" => {
                self.hit(&SHUTS_DOWN, c.line, &c.snippet, &[name]);
            }
            "useradd" | "adduser" | "usermod" | "groupadd" | "addgroup" | "groupmod"
            | "groupdel" | "delgroup" | "chpasswd" | "passwd" | "gpasswd" | "chsh" => {
                self.hit(&USER_ACCOUNTS, c.line, &c.snippet, &[name]);
            }
            "userdel" | "deluser" => {
                if c.has_flag('r', "remove-home") || c.has_flag('\0', "remove-all-files") {
                    self.hit(&DELETES_USER, c.line, &c.snippet, &[name]);
                } else {
                    self.hit(&USER_ACCOUNTS, c.line, &c.snippet, &[name]);
                }
            }
            "crontab" if !args.iter().any(|a| a == "-l") => {
                self.hit(&CRONTAB, c.line, &c.snippet, &[]);
            }
            _ => {
                if let Some(what) = service_change(name, &args) {
                    self.hit(&SERVICES, c.line, &c.snippet, &[&what]);
                } else if let Some(what) = network_change(name, &args) {
                    self.hit(&NETWORK, c.line, &c.snippet, &[&what]);
                }
            }
        }
    }

    /// `:(){ :|:& };:`: a function that pipes into itself. A wrapper that calls the program it
    /// is named after (`timeout() { command timeout "$@"; }`) calls no function.
    pub(crate) fn fork_bomb(&mut self, n: Node) {
        let Some(name) = n.child_by_field_name("name") else {
            return;
        };
        let name = self.text(name);
        let Some(body) = n.child_by_field_name("body") else {
            return;
        };
        fn self_piped(a: &Analyser, n: Node, name: &str, depth: usize) -> bool {
            if depth > crate::shell::MAX_TREE_DEPTH {
                return false;
            }
            if n.kind() == "pipeline" {
                let mut c = n.walk();
                let calls = n
                    .named_children(&mut c)
                    .filter(|s| {
                        s.kind() == "command"
                            && s.child_by_field_name("name")
                                .is_some_and(|k| a.text(k) == name)
                    })
                    .count();
                if calls >= 2 {
                    return true;
                }
            }
            let mut c = n.walk();
            let kids: Vec<Node> = n.named_children(&mut c).collect();
            kids.into_iter().any(|k| self_piped(a, k, name, depth + 1))
        }
        if self_piped(self, body, &name, 0) {
            let line = self.line(n);
            let snippet = self.text(n);
            self.hit(&FORK_BOMB, line, &snippet, &[]);
        }
    }
}

/// `systemctl restart x`, `service x stop`, `launchctl load`, …: the command and its action,
/// when it changes a service rather than reading its state.
fn service_change(name: &str, args: &[String]) -> Option<String> {
    let pos = super::not_options(args);
    let action = match name {
        "systemctl" => pos.first().copied().filter(|a| {
            matches!(
                *a,
                "start"
                    | "stop"
                    | "restart"
                    | "reload"
                    | "try-restart"
                    | "reload-or-restart"
                    | "enable"
                    | "disable"
                    | "reenable"
                    | "mask"
                    | "unmask"
                    | "kill"
                    | "isolate"
                    | "daemon-reload"
                    | "set-default"
                    | "edit"
            )
        }),
        // `service NAME ACTION`, `rc-service NAME ACTION`.
        "service" | "rc-service" => pos.get(1).copied().filter(|a| {
            matches!(
                *a,
                "start" | "stop" | "restart" | "reload" | "force-reload" | "zap"
            )
        }),
        "rc-update" => pos
            .first()
            .copied()
            .filter(|a| matches!(*a, "add" | "del" | "delete")),
        "launchctl" => pos.first().copied().filter(|a| {
            matches!(
                *a,
                "load"
                    | "unload"
                    | "bootstrap"
                    | "bootout"
                    | "enable"
                    | "disable"
                    | "kickstart"
                    | "stop"
                    | "start"
                    | "remove"
            )
        }),
        "update-rc.d" | "chkconfig" => pos.get(1).copied(),
        _ => None,
    }?;
    Some(format!("{name} {action}"))
}

/// `ip route add`, `ip neigh flush`, `iptables -A`, `nft add`, `ufw allow`, `sysctl -w`: the
/// command and what it changes.
fn network_change(name: &str, args: &[String]) -> Option<String> {
    let pos = super::not_options(args);
    match name {
        "ip" => {
            let object = *pos.first()?;
            let action = *pos.get(1)?;
            let objects = [
                "link",
                "l",
                "address",
                "addr",
                "a",
                "route",
                "r",
                "neighbour",
                "neighbor",
                "neigh",
                "n",
                "rule",
                "tunnel",
                "netns",
            ];
            let actions = [
                "add", "del", "delete", "set", "flush", "change", "replace", "append",
            ];
            (objects.contains(&object) && actions.contains(&action))
                .then(|| format!("ip {object} {action}"))
        }
        "iptables" | "ip6tables" | "iptables-legacy" | "ebtables" => args
            .iter()
            .find(|a| {
                matches!(
                    a.as_str(),
                    "-A" | "-I"
                        | "-D"
                        | "-F"
                        | "-X"
                        | "-P"
                        | "-N"
                        | "-R"
                        | "-Z"
                        | "--append"
                        | "--insert"
                        | "--delete"
                        | "--flush"
                        | "--policy"
                        | "--new-chain"
                )
            })
            .map(|a| format!("{name} {a}")),
        "nft" => pos
            .first()
            .filter(|a| {
                matches!(
                    **a,
                    "add" | "delete" | "flush" | "insert" | "replace" | "create" | "destroy"
                )
            })
            .map(|a| format!("nft {a}")),
        "ufw" => pos
            .first()
            .filter(|a| {
                matches!(
                    **a,
                    "allow"
                        | "deny"
                        | "reject"
                        | "limit"
                        | "enable"
                        | "disable"
                        | "delete"
                        | "reset"
                        | "insert"
                        | "default"
                )
            })
            .map(|a| format!("ufw {a}")),
        "sysctl" => (args
            .iter()
            .any(|a| a == "-w" || a == "--write" || a == "-p" || a == "--load")
            || pos.iter().any(|a| a.contains('=')))
        .then(|| "sysctl".to_string()),
        "ifconfig" => pos
            .iter()
            .skip(1)
            .find(|a| matches!(**a, "up" | "down" | "add" | "delete" | "alias" | "-alias"))
            .map(|a| format!("ifconfig {a}")),
        _ => None,
    }
}
