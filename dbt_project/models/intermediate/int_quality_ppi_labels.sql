-- One row per (review, quality metric) whose value the reference human labels determine: the metric computed
-- from the people's units exactly as the judge's is computed from its own (same formula, same denominator),
-- so quality_comparison can debias the judge's mean with prediction-powered inference. PPI moves the
-- judge's mean towards the mean of these values, so a value that is not the metric itself (a part of its
-- formula, a sample of its denominator) would move it towards something else: such a metric gets no row.
--   premise_ratio (depth; R of DoA): premises / (claims + premises) among the review's reference role spans
--     (int_judge_card_human_spans, annotator null: SubstanReview's spans, DISAPERE's sentences, a JSONL's).
--     A DISAPERE sentence that is no argument unit ('none') counts in neither, as the judge makes no unit of it.
-- No headline figure has one; what each needs that no dataset labels (docs/judges/index.md, PPI):
--   doa, grounding_norm: each premise's grounding 0-2 (S); DISAPERE, SubstanReview and the browser's labels
--     give roles and aspects only, and aspects are no input of DoA.
--   ns, sr, ssr: each claim's verdict s_c against the retrieved prior work; DISAPERE's stance of an
--     originality sentence is what the claim says, not whether the literature bears it out.
--   mcs, share_solution, share_clc_06: D4 solution, which RevUtil does not rate (and D5 on 0-2; RevUtil's
--     tone is yes/no). share_actionable: every comment of the review; RevUtil rates a sample (847 of its
--     974 reviews have one rated comment; the rated comments hold a median 21 % of the review's characters).
--   recall_critical, recall_minor (and weighted), ncps: the pool's valid flaws with their severity, across
--     every review of the paper; hallucination_rate: which parts of a review raise a flaw. ReviewCritique
--     calls each segment of one LLM review reliable or not, summaries and strengths included, without severity.
with

spans as (

    select * from {{ ref('int_judge_card_human_spans') }}
    where annotator is null and dimension = 'role' and label in ('claim', 'premise')

),

premise_ratio as (

    select
        review_key,
        'premise_ratio' as metric,
        count(*) filter (where label = 'premise') / count(*) as human_value,
        count(*) as n_spans,
        string_agg(distinct dataset, ',' order by dataset) as datasets

    from spans
    group by review_key

),

final as (

    select
        concat_ws('|', review_key, metric) as ppi_label_id,
        *

    from premise_ratio

)

select * from final
