-- Schema version 27 (PostgreSQL): which process made (or last joined) each analysis claim. As
-- ../0027_analysis_claim_owners.sql.
ALTER TABLE analysis_claims ADD COLUMN owner TEXT NOT NULL DEFAULT '';
