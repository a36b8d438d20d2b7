-- Teams, tokens for people and machines, console sessions, and the audit of every action. The H2 twin
-- (../h2/V38__teams_tokens_audit.sql) is the same.

-- A token's name is what DELETE /api/tokens/{name} revokes: one token per name. Names taken twice before this
-- (an AX_ADMIN_TOKEN changed between starts) keep their oldest row's name; the others get their id appended.
UPDATE ax_token SET name = name || '-' || CAST(id AS VARCHAR(20))
 WHERE id NOT IN (SELECT MIN(id) FROM ax_token GROUP BY name);
CREATE UNIQUE INDEX ax_token_name_uq ON ax_token (name);
-- owner: the person the token acts for, recorded as the actor (its name when not given).
ALTER TABLE ax_token ADD COLUMN owner VARCHAR(100);
UPDATE ax_token SET owner = name;
ALTER TABLE ax_token ALTER COLUMN owner SET NOT NULL;
-- team_roles: a JSON object team -> role granted above the global role; exec_groups: a JSON array of the executor
-- groups an executor's token may serve (NULL = every group).
ALTER TABLE ax_token ADD COLUMN team_roles TEXT;
ALTER TABLE ax_token ADD COLUMN exec_groups TEXT;
ALTER TABLE ax_token ADD COLUMN expires_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE ax_token ADD COLUMN last_used_at TIMESTAMP WITH TIME ZONE;
CREATE INDEX ax_token_owner ON ax_token (owner);

-- A revoked token's hash, so that a request still carrying it is told it was revoked (and when, by whom).
CREATE TABLE ax_token_revoked (
    token_hash  VARCHAR(64) PRIMARY KEY,
    name        VARCHAR(100) NOT NULL,
    owner       VARCHAR(100) NOT NULL,
    revoked_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    revoked_by  VARCHAR(100) NOT NULL
);

CREATE TABLE ax_team (
    name         VARCHAR(100) PRIMARY KEY,
    description  VARCHAR(500),
    created_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    created_by   VARCHAR(100) NOT NULL
);

-- The team that owns a task or a workflow (NULL: none, global roles only). Also in the definition; here to be found.
ALTER TABLE ax_task ADD COLUMN team VARCHAR(100);
CREATE INDEX ax_task_team ON ax_task (team);
ALTER TABLE ax_workflow ADD COLUMN team VARCHAR(100);
CREATE INDEX ax_workflow_team ON ax_workflow (team);

-- One row per action, written once: who (actor, and how they proved it: via), for which team, from where, what on
-- which target, and how it ended (outcome ok / refused / failed, with the HTTP status and message). Edits carry their diff.
CREATE TABLE ax_audit (
    id        BIGSERIAL PRIMARY KEY,
    at        TIMESTAMP WITH TIME ZONE NOT NULL,
    actor     VARCHAR(100) NOT NULL,
    via       VARCHAR(120) NOT NULL,
    team      VARCHAR(100),
    address   VARCHAR(64),
    action    VARCHAR(64) NOT NULL,
    target    VARCHAR(200),
    outcome   VARCHAR(16) NOT NULL,
    status    INT NOT NULL,
    message   TEXT,
    diff      TEXT
);
CREATE INDEX ax_audit_at ON ax_audit (at, id);
CREATE INDEX ax_audit_actor ON ax_audit (actor, id);
CREATE INDEX ax_audit_team ON ax_audit (team, id);
CREATE INDEX ax_audit_target ON ax_audit (target, id);

-- Console sessions of people who signed in with single sign-on: the cookie holds a random id, the table its hash, the
-- person and the grants their identity provider's claims mapped to when they signed in.
CREATE TABLE ax_console_session (
    id_hash     VARCHAR(64) PRIMARY KEY,
    person      VARCHAR(100) NOT NULL,
    grants      TEXT NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    expires_at  TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX ax_console_session_expires ON ax_console_session (expires_at);

-- A single sign-on begun and not yet come back: the state sent to the identity provider, the PKCE verifier and the
-- nonce to check its answer with, and where to go after. Any node may receive the answer; each is used once.
CREATE TABLE ax_sso_login (
    state       VARCHAR(64) PRIMARY KEY,
    verifier    VARCHAR(128) NOT NULL,
    nonce       VARCHAR(64) NOT NULL,
    next_path   VARCHAR(500) NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL
);

-- The token an executor id was registered with: a token limited to some groups may speak only for the executor ids
-- it registered, so that it cannot report on another executor's runs.
ALTER TABLE ax_executor ADD COLUMN token_name VARCHAR(100);
