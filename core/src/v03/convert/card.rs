//! Agent cards and security schemes (and ListTasks, which v0.3 does not have).

use super::*;

fn requirements_v1(reqs: &Option<Vec<BTreeMap<String, Vec<String>>>>) -> Vec<v1::SecurityRequirement> {
    reqs.iter()
        .flatten()
        .map(|r| v1::SecurityRequirement { schemes: r.iter().map(|(k, v)| (k.clone(), v1::StringList { list: v.clone() })).collect() })
        .collect()
}

fn requirements_v03(reqs: &[v1::SecurityRequirement]) -> Option<Vec<BTreeMap<String, Vec<String>>>> {
    (!reqs.is_empty()).then(|| reqs.iter().map(|r| r.schemes.iter().map(|(k, v)| (k.clone(), v.list.clone())).collect()).collect())
}

impl ToV1 for SecurityScheme {
    type V1 = v1::SecurityScheme;
    fn v1(&self, cx: &mut Cx) -> Result<v1::SecurityScheme, ConvertError> {
        use v1::security_scheme::Scheme;
        let d = |x: &Option<String>| x.clone().unwrap_or_default();
        let scheme = match self {
            SecurityScheme::ApiKey { r#in, name, description } => Scheme::ApiKeySecurityScheme(v1::ApiKeySecurityScheme {
                description: d(description),
                location: r#in.clone(),
                name: name.clone(),
            }),
            SecurityScheme::Http { scheme, bearer_format, description } => Scheme::HttpAuthSecurityScheme(v1::HttpAuthSecurityScheme {
                description: d(description),
                scheme: scheme.clone(),
                bearer_format: d(bearer_format),
            }),
            SecurityScheme::OAuth2 { flows, oauth2_metadata_url, description } => {
                use v1::o_auth_flows::Flow;
                let mut chosen = None;
                let candidates: [(&str, &Option<OAuthFlow>); 4] = [
                    ("authorizationCode", &flows.authorization_code),
                    ("clientCredentials", &flows.client_credentials),
                    ("implicit", &flows.implicit),
                    ("password", &flows.password),
                ];
                for (name, flow) in candidates {
                    let Some(f) = flow else { continue };
                    if chosen.is_some() {
                        cx.loss(LossKind::ExtraOAuthFlows, &format!("flows.{name}"));
                        continue;
                    }
                    let u = |x: &Option<String>| x.clone().unwrap_or_default();
                    #[allow(deprecated)]
                    let flow = match name {
                        "authorizationCode" => Flow::AuthorizationCode(v1::AuthorizationCodeOAuthFlow {
                            authorization_url: u(&f.authorization_url),
                            token_url: u(&f.token_url),
                            refresh_url: u(&f.refresh_url),
                            scopes: f.scopes.clone(),
                            pkce_required: false,
                        }),
                        "clientCredentials" => Flow::ClientCredentials(v1::ClientCredentialsOAuthFlow {
                            token_url: u(&f.token_url),
                            refresh_url: u(&f.refresh_url),
                            scopes: f.scopes.clone(),
                        }),
                        "implicit" => Flow::Implicit(v1::ImplicitOAuthFlow {
                            authorization_url: u(&f.authorization_url),
                            refresh_url: u(&f.refresh_url),
                            scopes: f.scopes.clone(),
                        }),
                        _ => Flow::Password(v1::PasswordOAuthFlow {
                            token_url: u(&f.token_url),
                            refresh_url: u(&f.refresh_url),
                            scopes: f.scopes.clone(),
                        }),
                    };
                    chosen = Some(flow);
                }
                Scheme::Oauth2SecurityScheme(v1::OAuth2SecurityScheme {
                    description: d(description),
                    flows: Some(v1::OAuthFlows { flow: chosen }),
                    oauth2_metadata_url: d(oauth2_metadata_url),
                })
            }
            SecurityScheme::OpenIdConnect { open_id_connect_url, description } => {
                Scheme::OpenIdConnectSecurityScheme(v1::OpenIdConnectSecurityScheme {
                    description: d(description),
                    open_id_connect_url: open_id_connect_url.clone(),
                })
            }
            SecurityScheme::MutualTls { description } => {
                Scheme::MtlsSecurityScheme(v1::MutualTlsSecurityScheme { description: d(description) })
            }
        };
        Ok(v1::SecurityScheme { scheme: Some(scheme) })
    }
}

impl ToV03 for v1::SecurityScheme {
    type V03 = SecurityScheme;
    fn v03(&self, cx: &mut Cx) -> Result<SecurityScheme, ConvertError> {
        use v1::security_scheme::Scheme;
        Ok(match &self.scheme {
            None => return Err(cx.missing("")),
            Some(Scheme::ApiKeySecurityScheme(s)) => {
                SecurityScheme::ApiKey { r#in: s.location.clone(), name: s.name.clone(), description: opt(&s.description) }
            }
            Some(Scheme::HttpAuthSecurityScheme(s)) => {
                SecurityScheme::Http { scheme: s.scheme.clone(), bearer_format: opt(&s.bearer_format), description: opt(&s.description) }
            }
            Some(Scheme::OpenIdConnectSecurityScheme(s)) => {
                SecurityScheme::OpenIdConnect { open_id_connect_url: s.open_id_connect_url.clone(), description: opt(&s.description) }
            }
            Some(Scheme::MtlsSecurityScheme(s)) => SecurityScheme::MutualTls { description: opt(&s.description) },
            Some(Scheme::Oauth2SecurityScheme(s)) => {
                use v1::o_auth_flows::Flow;
                let mut flows = OAuthFlows::default();
                cx.at("oauth2SecurityScheme.flows", |cx| {
                    #[allow(deprecated)]
                    match s.flows.as_ref().and_then(|f| f.flow.as_ref()) {
                        None => {}
                        Some(Flow::AuthorizationCode(f)) => {
                            if f.pkce_required {
                                cx.loss(LossKind::Dropped, "authorizationCode.pkceRequired");
                            }
                            flows.authorization_code = Some(OAuthFlow {
                                authorization_url: Some(f.authorization_url.clone()),
                                token_url: Some(f.token_url.clone()),
                                refresh_url: opt(&f.refresh_url),
                                scopes: f.scopes.clone(),
                            });
                        }
                        Some(Flow::ClientCredentials(f)) => {
                            flows.client_credentials = Some(OAuthFlow {
                                authorization_url: None,
                                token_url: Some(f.token_url.clone()),
                                refresh_url: opt(&f.refresh_url),
                                scopes: f.scopes.clone(),
                            });
                        }
                        Some(Flow::Implicit(f)) => {
                            flows.implicit = Some(OAuthFlow {
                                authorization_url: Some(f.authorization_url.clone()),
                                token_url: None,
                                refresh_url: opt(&f.refresh_url),
                                scopes: f.scopes.clone(),
                            });
                        }
                        Some(Flow::Password(f)) => {
                            flows.password = Some(OAuthFlow {
                                authorization_url: None,
                                token_url: Some(f.token_url.clone()),
                                refresh_url: opt(&f.refresh_url),
                                scopes: f.scopes.clone(),
                            });
                        }
                        Some(Flow::DeviceCode(_)) => cx.loss(LossKind::Dropped, "deviceCode"),
                    }
                });
                SecurityScheme::OAuth2 { flows, oauth2_metadata_url: opt(&s.oauth2_metadata_url), description: opt(&s.description) }
            }
        })
    }
}

impl ToV1 for AgentCard {
    type V1 = v1::AgentCard;
    fn v1(&self, cx: &mut Cx) -> Result<v1::AgentCard, ConvertError> {
        let version = major_minor(&self.protocol_version);
        let main = v1::AgentInterface {
            url: self.url.clone(),
            protocol_binding: self.preferred_transport.clone(),
            tenant: String::new(),
            protocol_version: version.clone(),
        };
        let mut interfaces = alloc::vec![main];
        for extra in self.additional_interfaces.iter().flatten() {
            // v0.3 recommends listing the main interface here too; keep each entry once.
            if !interfaces.iter().any(|i| i.url == extra.url && i.protocol_binding == extra.transport) {
                interfaces.push(v1::AgentInterface {
                    url: extra.url.clone(),
                    protocol_binding: extra.transport.clone(),
                    tenant: String::new(),
                    protocol_version: version.clone(),
                });
            }
        }
        if self.capabilities.state_transition_history.is_some() {
            cx.loss(LossKind::Dropped, "capabilities.stateTransitionHistory");
        }
        let mut schemes = BTreeMap::new();
        for (name, s) in self.security_schemes.iter().flatten() {
            let v = cx.at("securitySchemes", |cx| cx.at(name, |cx| s.v1(cx)))?;
            schemes.insert(name.clone(), v);
        }
        Ok(v1::AgentCard {
            name: self.name.clone(),
            description: self.description.clone(),
            supported_interfaces: interfaces,
            provider: self.provider.as_ref().map(|p| v1::AgentProvider { url: p.url.clone(), organization: p.organization.clone() }),
            version: self.version.clone(),
            documentation_url: self.documentation_url.clone(),
            capabilities: Some(v1::AgentCapabilities {
                streaming: self.capabilities.streaming,
                push_notifications: self.capabilities.push_notifications,
                extensions: self
                    .capabilities
                    .extensions
                    .iter()
                    .flatten()
                    .map(|e| v1::AgentExtension {
                        uri: e.uri.clone(),
                        description: e.description.clone().unwrap_or_default(),
                        required: e.required.unwrap_or(false),
                        params: meta_v1(&e.params),
                    })
                    .collect(),
                extended_agent_card: self.supports_authenticated_extended_card,
            }),
            security_schemes: schemes,
            security_requirements: requirements_v1(&self.security),
            default_input_modes: self.default_input_modes.clone(),
            default_output_modes: self.default_output_modes.clone(),
            skills: self
                .skills
                .iter()
                .map(|s| v1::AgentSkill {
                    id: s.id.clone(),
                    name: s.name.clone(),
                    description: s.description.clone(),
                    tags: s.tags.clone(),
                    examples: s.examples.clone().unwrap_or_default(),
                    input_modes: s.input_modes.clone().unwrap_or_default(),
                    output_modes: s.output_modes.clone().unwrap_or_default(),
                    security_requirements: requirements_v1(&s.security),
                })
                .collect(),
            signatures: self
                .signatures
                .iter()
                .flatten()
                .map(|s| v1::AgentCardSignature {
                    protected: s.protected.clone(),
                    signature: s.signature.clone(),
                    header: meta_v1(&s.header),
                })
                .collect(),
            icon_url: self.icon_url.clone(),
        })
    }
}

impl ToV03 for v1::AgentCard {
    type V03 = AgentCard;
    fn v03(&self, cx: &mut Cx) -> Result<AgentCard, ConvertError> {
        // A v0.3 card speaks one protocol version: that of its main interface, the first 0.x
        // interface if there is one (a v0.3 reader can use it), else the first. Interfaces of
        // other versions cannot be listed without being misread as that version.
        let main = self.supported_interfaces.iter().position(|i| i.protocol_version.starts_with("0.")).unwrap_or(0);
        let first = self.supported_interfaces.get(main).ok_or_else(|| cx.missing("supportedInterfaces"))?;
        let version = first.protocol_version.clone();
        let mut additional = Vec::new();
        cx.at("supportedInterfaces", |cx| {
            for (i, iface) in self.supported_interfaces.iter().enumerate() {
                cx.idx(i, |cx| {
                    if iface.protocol_version != version {
                        cx.loss(LossKind::Dropped, "");
                        return;
                    }
                    if !iface.tenant.is_empty() {
                        cx.loss(LossKind::Dropped, "tenant");
                    }
                    additional.push(AgentInterface { url: iface.url.clone(), transport: iface.protocol_binding.clone() });
                });
            }
        });
        let mut schemes = BTreeMap::new();
        for (name, s) in &self.security_schemes {
            let v = cx.at("securitySchemes", |cx| cx.at(name, |cx| s.v03(cx)))?;
            schemes.insert(name.clone(), v);
        }
        let caps = self.capabilities.clone().unwrap_or_default();
        Ok(AgentCard {
            protocol_version: if version.matches('.').count() == 1 { format!("{version}.0") } else { version.clone() },
            name: self.name.clone(),
            description: self.description.clone(),
            url: first.url.clone(),
            preferred_transport: first.protocol_binding.clone(),
            additional_interfaces: Some(additional),
            icon_url: self.icon_url.clone(),
            provider: self.provider.as_ref().map(|p| AgentProvider { organization: p.organization.clone(), url: p.url.clone() }),
            version: self.version.clone(),
            documentation_url: self.documentation_url.clone(),
            capabilities: AgentCapabilities {
                streaming: caps.streaming,
                push_notifications: caps.push_notifications,
                state_transition_history: None,
                extensions: (!caps.extensions.is_empty()).then(|| {
                    caps.extensions
                        .iter()
                        .map(|e| AgentExtension {
                            uri: e.uri.clone(),
                            description: opt(&e.description),
                            required: e.required.then_some(true),
                            params: meta_v03(&e.params),
                        })
                        .collect()
                }),
            },
            security_schemes: (!schemes.is_empty()).then_some(schemes),
            security: requirements_v03(&self.security_requirements),
            default_input_modes: self.default_input_modes.clone(),
            default_output_modes: self.default_output_modes.clone(),
            skills: self
                .skills
                .iter()
                .map(|s| AgentSkill {
                    id: s.id.clone(),
                    name: s.name.clone(),
                    description: s.description.clone(),
                    tags: s.tags.clone(),
                    examples: opt_list(&s.examples),
                    input_modes: opt_list(&s.input_modes),
                    output_modes: opt_list(&s.output_modes),
                    security: requirements_v03(&s.security_requirements),
                })
                .collect(),
            supports_authenticated_extended_card: caps.extended_agent_card,
            signatures: (!self.signatures.is_empty()).then(|| {
                self.signatures
                    .iter()
                    .map(|s| AgentCardSignature {
                        protected: s.protected.clone(),
                        signature: s.signature.clone(),
                        header: meta_v03(&s.header),
                    })
                    .collect()
            }),
        })
    }
}

/// ListTasks has no v0.3 JSON-RPC method.
impl ToV03 for v1::ListTasksRequest {
    type V03 = ();
    fn v03(&self, _cx: &mut Cx) -> Result<(), ConvertError> {
        Err(ConvertError::NoEquivalent { what: "ListTasks" })
    }
}
