//! The v0.3 Agent Card and its security schemes between the proto and the JSON model.

use super::*;

fn security_from_pb(s: &[pb::Security]) -> Option<Vec<BTreeMap<String, Vec<String>>>> {
    (!s.is_empty()).then(|| s.iter().map(|r| r.schemes.iter().map(|(k, v)| (k.clone(), v.list.clone())).collect()).collect())
}

fn security_to_pb(s: &Option<Vec<BTreeMap<String, Vec<String>>>>) -> Vec<pb::Security> {
    s.iter()
        .flatten()
        .map(|r| pb::Security { schemes: r.iter().map(|(k, v)| (k.clone(), pb::StringList { list: v.clone() })).collect() })
        .collect()
}

fn flow_from_pb(url_auth: &str, url_token: &str, refresh: &str, scopes: &BTreeMap<String, String>) -> OAuthFlow {
    OAuthFlow { authorization_url: opt(url_auth), token_url: opt(url_token), refresh_url: opt(refresh), scopes: scopes.clone() }
}

impl FromPb for SecurityScheme {
    type Pb = pb::SecurityScheme;
    fn from_pb(s: &pb::SecurityScheme, cx: &mut Cx) -> Result<SecurityScheme, ConvertError> {
        use pb::security_scheme::Scheme;
        Ok(match &s.scheme {
            Some(Scheme::ApiKeySecurityScheme(k)) => {
                SecurityScheme::ApiKey { r#in: k.location.clone(), name: k.name.clone(), description: opt(&k.description) }
            }
            Some(Scheme::HttpAuthSecurityScheme(h)) => {
                SecurityScheme::Http { scheme: h.scheme.clone(), bearer_format: opt(&h.bearer_format), description: opt(&h.description) }
            }
            Some(Scheme::OpenIdConnectSecurityScheme(o)) => {
                SecurityScheme::OpenIdConnect { open_id_connect_url: o.open_id_connect_url.clone(), description: opt(&o.description) }
            }
            Some(Scheme::MtlsSecurityScheme(m)) => SecurityScheme::MutualTls { description: opt(&m.description) },
            Some(Scheme::Oauth2SecurityScheme(o)) => {
                use pb::o_auth_flows::Flow;
                let mut flows = OAuthFlows::default();
                match o.flows.as_ref().and_then(|f| f.flow.as_ref()) {
                    Some(Flow::AuthorizationCode(f)) => {
                        flows.authorization_code = Some(flow_from_pb(&f.authorization_url, &f.token_url, &f.refresh_url, &f.scopes))
                    }
                    Some(Flow::ClientCredentials(f)) => {
                        flows.client_credentials = Some(flow_from_pb("", &f.token_url, &f.refresh_url, &f.scopes))
                    }
                    Some(Flow::Implicit(f)) => flows.implicit = Some(flow_from_pb(&f.authorization_url, "", &f.refresh_url, &f.scopes)),
                    Some(Flow::Password(f)) => flows.password = Some(flow_from_pb("", &f.token_url, &f.refresh_url, &f.scopes)),
                    None => {}
                }
                SecurityScheme::OAuth2 { flows, oauth2_metadata_url: opt(&o.oauth2_metadata_url), description: opt(&o.description) }
            }
            None => return Err(cx.missing("")),
        })
    }
}

impl IntoPb for SecurityScheme {
    type Pb = pb::SecurityScheme;
    fn into_pb(&self, cx: &mut Cx) -> Result<pb::SecurityScheme, ConvertError> {
        use pb::security_scheme::Scheme;
        let d = |x: &Option<String>| x.clone().unwrap_or_default();
        let scheme = match self {
            SecurityScheme::ApiKey { r#in, name, description } => Scheme::ApiKeySecurityScheme(pb::ApiKeySecurityScheme {
                description: d(description),
                location: r#in.clone(),
                name: name.clone(),
            }),
            SecurityScheme::Http { scheme, bearer_format, description } => Scheme::HttpAuthSecurityScheme(pb::HttpAuthSecurityScheme {
                description: d(description),
                scheme: scheme.clone(),
                bearer_format: d(bearer_format),
            }),
            SecurityScheme::OpenIdConnect { open_id_connect_url, description } => {
                Scheme::OpenIdConnectSecurityScheme(pb::OpenIdConnectSecurityScheme {
                    description: d(description),
                    open_id_connect_url: open_id_connect_url.clone(),
                })
            }
            SecurityScheme::MutualTls { description } => {
                Scheme::MtlsSecurityScheme(pb::MutualTlsSecurityScheme { description: d(description) })
            }
            SecurityScheme::OAuth2 { flows, oauth2_metadata_url, description } => {
                use pb::o_auth_flows::Flow;
                let u = |x: &Option<String>| x.clone().unwrap_or_default();
                let mut chosen = None;
                let candidates: [(&str, &Option<OAuthFlow>); 4] = [
                    ("authorizationCode", &flows.authorization_code),
                    ("clientCredentials", &flows.client_credentials),
                    ("implicit", &flows.implicit),
                    ("password", &flows.password),
                ];
                for (name, f) in candidates {
                    let Some(f) = f else { continue };
                    if chosen.is_some() {
                        cx.loss(LossKind::ExtraOAuthFlows, &format!("flows.{name}"));
                        continue;
                    }
                    chosen = Some(match name {
                        "authorizationCode" => Flow::AuthorizationCode(pb::AuthorizationCodeOAuthFlow {
                            authorization_url: u(&f.authorization_url),
                            token_url: u(&f.token_url),
                            refresh_url: u(&f.refresh_url),
                            scopes: f.scopes.clone(),
                        }),
                        "clientCredentials" => Flow::ClientCredentials(pb::ClientCredentialsOAuthFlow {
                            token_url: u(&f.token_url),
                            refresh_url: u(&f.refresh_url),
                            scopes: f.scopes.clone(),
                        }),
                        "implicit" => Flow::Implicit(pb::ImplicitOAuthFlow {
                            authorization_url: u(&f.authorization_url),
                            refresh_url: u(&f.refresh_url),
                            scopes: f.scopes.clone(),
                        }),
                        _ => Flow::Password(pb::PasswordOAuthFlow {
                            token_url: u(&f.token_url),
                            refresh_url: u(&f.refresh_url),
                            scopes: f.scopes.clone(),
                        }),
                    });
                }
                Scheme::Oauth2SecurityScheme(pb::OAuth2SecurityScheme {
                    description: d(description),
                    flows: Some(pb::OAuthFlows { flow: chosen }),
                    oauth2_metadata_url: d(oauth2_metadata_url),
                })
            }
        };
        Ok(pb::SecurityScheme { scheme: Some(scheme) })
    }
}

impl FromPb for AgentCard {
    type Pb = pb::AgentCard;
    fn from_pb(c: &pb::AgentCard, cx: &mut Cx) -> Result<AgentCard, ConvertError> {
        let mut schemes = BTreeMap::new();
        for (name, s) in &c.security_schemes {
            schemes.insert(name.clone(), cx.at("securitySchemes", |cx| cx.at(name, |cx| SecurityScheme::from_pb(s, cx)))?);
        }
        let caps = c.capabilities.clone().unwrap_or_default();
        Ok(AgentCard {
            protocol_version: if c.protocol_version.is_empty() { String::from("0.3.0") } else { c.protocol_version.clone() },
            name: c.name.clone(),
            description: c.description.clone(),
            url: c.url.clone(),
            preferred_transport: if c.preferred_transport.is_empty() { String::from("JSONRPC") } else { c.preferred_transport.clone() },
            additional_interfaces: (!c.additional_interfaces.is_empty()).then(|| {
                c.additional_interfaces.iter().map(|i| AgentInterface { url: i.url.clone(), transport: i.transport.clone() }).collect()
            }),
            icon_url: None,
            provider: c.provider.as_ref().map(|p| AgentProvider { organization: p.organization.clone(), url: p.url.clone() }),
            version: c.version.clone(),
            documentation_url: opt(&c.documentation_url),
            capabilities: AgentCapabilities {
                streaming: caps.streaming.then_some(true),
                push_notifications: caps.push_notifications.then_some(true),
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
            security: security_from_pb(&c.security),
            default_input_modes: c.default_input_modes.clone(),
            default_output_modes: c.default_output_modes.clone(),
            skills: c
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
                    security: security_from_pb(&s.security),
                })
                .collect(),
            supports_authenticated_extended_card: c.supports_authenticated_extended_card.then_some(true),
            signatures: (!c.signatures.is_empty()).then(|| {
                c.signatures
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

impl IntoPb for AgentCard {
    type Pb = pb::AgentCard;
    fn into_pb(&self, cx: &mut Cx) -> Result<pb::AgentCard, ConvertError> {
        let mut schemes = BTreeMap::new();
        for (name, s) in self.security_schemes.iter().flatten() {
            schemes.insert(name.clone(), cx.at("securitySchemes", |cx| cx.at(name, |cx| s.into_pb(cx)))?);
        }
        if self.icon_url.is_some() {
            cx.loss(LossKind::Dropped, "iconUrl");
        }
        if self.capabilities.state_transition_history.is_some() {
            cx.loss(LossKind::Dropped, "capabilities.stateTransitionHistory");
        }
        Ok(pb::AgentCard {
            protocol_version: self.protocol_version.clone(),
            name: self.name.clone(),
            description: self.description.clone(),
            url: self.url.clone(),
            preferred_transport: self.preferred_transport.clone(),
            additional_interfaces: self
                .additional_interfaces
                .iter()
                .flatten()
                .map(|i| pb::AgentInterface { url: i.url.clone(), transport: i.transport.clone() })
                .collect(),
            provider: self.provider.as_ref().map(|p| pb::AgentProvider { url: p.url.clone(), organization: p.organization.clone() }),
            version: self.version.clone(),
            documentation_url: self.documentation_url.clone().unwrap_or_default(),
            capabilities: Some(pb::AgentCapabilities {
                streaming: self.capabilities.streaming.unwrap_or(false),
                push_notifications: self.capabilities.push_notifications.unwrap_or(false),
                extensions: self
                    .capabilities
                    .extensions
                    .iter()
                    .flatten()
                    .map(|e| pb::AgentExtension {
                        uri: e.uri.clone(),
                        description: e.description.clone().unwrap_or_default(),
                        required: e.required.unwrap_or(false),
                        params: meta_v1(&e.params),
                    })
                    .collect(),
            }),
            security_schemes: schemes,
            security: security_to_pb(&self.security),
            default_input_modes: self.default_input_modes.clone(),
            default_output_modes: self.default_output_modes.clone(),
            skills: self
                .skills
                .iter()
                .map(|s| pb::AgentSkill {
                    id: s.id.clone(),
                    name: s.name.clone(),
                    description: s.description.clone(),
                    tags: s.tags.clone(),
                    examples: s.examples.clone().unwrap_or_default(),
                    input_modes: s.input_modes.clone().unwrap_or_default(),
                    output_modes: s.output_modes.clone().unwrap_or_default(),
                    security: security_to_pb(&s.security),
                })
                .collect(),
            supports_authenticated_extended_card: self.supports_authenticated_extended_card.unwrap_or(false),
            signatures: self
                .signatures
                .iter()
                .flatten()
                .map(|s| pb::AgentCardSignature {
                    protected: s.protected.clone(),
                    signature: s.signature.clone(),
                    header: meta_v1(&s.header),
                })
                .collect(),
        })
    }
}
