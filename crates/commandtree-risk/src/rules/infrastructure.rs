//! Deployed infrastructure: cluster resources deleted, releases uninstalled, infrastructure
//! destroyed or changed, cloud resources deleted. All count wherever the code runs.

use super::{Family, Reach, Rule};
use crate::Level;
use crate::shell::{Analyser, Cmd};

family_rule!(Family::Infrastructure, Reach::Shared);

pub(crate) const KUBECTL_DELETE: Rule = rule(
    "kubectl-delete",
    Level::Danger,
    "`kubectl delete`, `kubectl drain`",
    "deletes cluster resources (kubectl {})",
    "kubectl delete namespace staging",
);
pub(crate) const HELM_UNINSTALL: Rule = rule(
    "helm-uninstall",
    Level::Danger,
    "`helm uninstall`, `delete`",
    "removes a deployed release (helm uninstall)",
    "helm uninstall web -n prod",
);
pub(crate) const DESTROYS: Rule = rule(
    "destroys-infrastructure",
    Level::Danger,
    "`terraform destroy`, `apply -destroy`, `pulumi destroy`, `cdk destroy`",
    "destroys infrastructure ({} destroy)",
    "terraform destroy -auto-approve",
);
pub(crate) const CHANGES: Rule = rule(
    "changes-infrastructure",
    Level::Caution,
    "`terraform apply`, `pulumi up`, `cdk deploy`",
    "changes deployed infrastructure ({} {})",
    "terraform apply -auto-approve",
);
pub(crate) const CLOUD_DELETE: Rule = rule(
    "cloud-delete",
    Level::Danger,
    "`aws … delete-*`, `aws s3 rb`, `aws s3 rm --recursive`, `gcloud … delete`, …",
    "deletes cloud resources ({})",
    "aws s3 rm s3://bucket/site --recursive",
);

/// A cloud CLI's command that deletes resources (`aws s3 rb`, `… delete-stack`, `rm -r`).
pub(super) fn cloud_destructive(c: &Cmd) -> bool {
    let args = c.arg_texts();
    args.iter().any(|a| {
        matches!(
            a.as_str(),
            "rb" | "delete"
                | "terminate-instances"
                | "delete-stack"
                | "delete-bucket"
                | "delete-db-instance"
                | "delete-cluster"
        ) || a.starts_with("delete-")
    }) || ((args.iter().any(|a| a == "rm")) && (c.has_flag('r', "recursive")))
}

impl Analyser<'_> {
    pub(crate) fn infrastructure(&mut self, c: &Cmd) {
        let args = c.arg_texts();
        let name = c.name.as_str();
        match name {
            "kubectl" | "oc" => {
                if let Some((_, sub)) = c.subcommand(&["-n", "--namespace", "--context", "-l"])
                    && matches!(sub.as_str(), "delete" | "drain")
                {
                    self.hit(&KUBECTL_DELETE, c.line, &c.snippet, &[&sub]);
                }
            }
            "helm"
                if matches!(
                    c.subcommand(&["-n", "--namespace"]).map(|s| s.1).as_deref(),
                    Some("uninstall" | "delete" | "del" | "un")
                ) =>
            {
                self.hit(&HELM_UNINSTALL, c.line, &c.snippet, &[]);
            }
            "terraform" | "tofu" | "terragrunt" | "pulumi" | "cdk" | "cdktf" => {
                let sub = c
                    .subcommand(&["-chdir", "--stack", "-s", "--app", "-a"])
                    .map(|s| s.1);
                let destroy =
                    sub.as_deref() == Some("destroy") || args.iter().any(|a| a == "-destroy");
                if destroy {
                    self.hit(&DESTROYS, c.line, &c.snippet, &[name]);
                } else if matches!(sub.as_deref(), Some("apply" | "up" | "deploy")) {
                    let sub = sub.unwrap_or_default();
                    self.hit(&CHANGES, c.line, &c.snippet, &[name, &sub]);
                }
            }
            "aws" | "gcloud" | "az" | "gsutil" | "doctl" if cloud_destructive(c) => {
                self.hit(&CLOUD_DELETE, c.line, &c.snippet, &[name]);
            }
            _ => {}
        }
    }
}
