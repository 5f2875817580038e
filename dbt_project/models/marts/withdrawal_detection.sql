-- One row per (study, reviewer configuration, withdrawal judge configuration, level): how often a
-- configuration's reviews of the study's withdrawn papers find the problem the authors gave for
-- withdrawing (the WithdrarXiv-Check matching: Exact and Similar). The judge configurations and repeats are
-- the study's: those its newest experiment_withdrawals run recorded (study_resolved, judges_json); the
-- levels are those that judge configuration judged on the study's reviews.
--
-- A paper counts as matched in repeat r when ANY of that configuration's reviews of it (its samples)
-- is judged a match in repeat r. It is decided when matched, or when every one of those reviews has an
-- answered judgment (against the paper's newest note) that says no; otherwise (a review not judged yet,
-- a null judgment) it is undecided and left out of `accuracy`.
--   accuracy        = matched paper-repeats / decided paper-repeats (null with a reason when none is decided)
--   accuracy_of_all = matched paper-repeats / (n_papers × n_repeats): every withdrawn paper of the study
--                     counts, unreviewed or undecided ones as not matched (the seed's "out of 211")
--   matched_count   = matched paper-repeats / n_repeats: the number of papers matched (a mean over
--                     repeats when the judge repeats)
with

reviews as (

    select * from {{ ref('int_withdrawal_reviews') }}

),

judgments as (

    select * from {{ ref('int_withdrawal_judgments') }}
    where is_current_note

),

study_papers as (

    select * from {{ ref('int_study_papers') }}

),

notes as (

    select * from {{ ref('int_withdrawal_notes') }}

),

judge_repeats as (

    -- the study counts repeats 0..repeats-1 (another study's extra repeats are not its own)
    select
        study_id,
        judge_config,
        n_repeats

    from {{ ref('int_experiment_judges') }}
    where resolved_by_asset = 'experiment_withdrawals' and judge = 'withdrawal_match'

),

withdrawn as (

    -- the denominator of accuracy_of_all: the study's papers with a withdrawal note
    select
        study_papers.study_id,
        count(*) as n_papers

    from study_papers
    inner join notes on study_papers.paper_id = notes.paper_id
    group by study_papers.study_id

),

judged as (

    -- the study's reviews' judgments
    select
        reviews.study_id,
        reviews.source,
        reviews.reviewer_config,
        reviews.paper_id,
        reviews.review_key,
        judgments.judge_config,
        judgments.match_level,
        judgments.repeat_index,
        judgments.is_ok,
        judgments.is_match

    from reviews
    inner join judgments on reviews.review_key = judgments.review_key and reviews.paper_id = judgments.paper_id
    inner join judge_repeats
        on
            reviews.study_id = judge_repeats.study_id
            and judgments.judge_config = judge_repeats.judge_config
            and judgments.repeat_index < judge_repeats.n_repeats

),

judge_levels as (

    select
        study_id,
        judge_config,
        match_level

    from judged
    group by all

),

grids as (

    -- what each judge configuration measured in a study: its levels, each in repeats 0..max
    select
        judge_levels.study_id,
        judge_levels.judge_config,
        judge_levels.match_level,
        unnest(range(0, judge_repeats.n_repeats)) as repeat_index

    from judge_levels
    inner join judge_repeats
        on judge_levels.study_id = judge_repeats.study_id and judge_levels.judge_config = judge_repeats.judge_config

),

configs as (

    -- the reviewer configurations a judge configuration covers: every one with reviews of a withdrawn
    -- paper, except the human reviews unless that judge configuration read some of them
    select distinct
        reviews.study_id,
        reviews.source,
        reviews.reviewer_config,
        judge_repeats.judge_config

    from reviews
    inner join judge_repeats on reviews.study_id = judge_repeats.study_id
    where
        reviews.source != 'human'
        or exists (
            select 1
            from judged
            where
                judged.study_id = reviews.study_id
                and judged.judge_config = judge_repeats.judge_config
                and judged.source = 'human'
        )

),

paper_reviews as (

    select
        study_id,
        source,
        reviewer_config,
        paper_id,
        count(*) as n_reviews

    from reviews
    group by all

),

paper_repeats as (

    select
        configs.study_id,
        configs.source,
        configs.reviewer_config,
        configs.judge_config,
        grids.match_level,
        grids.repeat_index,
        paper_reviews.paper_id,
        paper_reviews.n_reviews

    from configs
    inner join grids on configs.study_id = grids.study_id and configs.judge_config = grids.judge_config
    inner join paper_reviews
        on
            configs.study_id = paper_reviews.study_id
            and configs.source = paper_reviews.source
            and configs.reviewer_config = paper_reviews.reviewer_config

),

verdicts as (

    select
        paper_repeats.study_id,
        paper_repeats.source,
        paper_repeats.reviewer_config,
        paper_repeats.judge_config,
        paper_repeats.match_level,
        paper_repeats.repeat_index,
        paper_repeats.paper_id,
        any_value(paper_repeats.n_reviews) as n_reviews,
        count(judged.review_key) filter (where judged.is_ok) as n_answered,
        count(judged.review_key) filter (where not judged.is_ok) as n_null,
        coalesce(bool_or(judged.is_match), false) as is_matched

    from paper_repeats
    left join judged
        on
            paper_repeats.study_id = judged.study_id
            and paper_repeats.source = judged.source
            and paper_repeats.reviewer_config = judged.reviewer_config
            and paper_repeats.judge_config = judged.judge_config
            and paper_repeats.match_level = judged.match_level
            and paper_repeats.repeat_index = judged.repeat_index
            and paper_repeats.paper_id = judged.paper_id
    group by all

),

labels as (

    select
        study_id,
        source,
        reviewer_config,
        any_value(reviewer_label) as reviewer_label,
        count(*) as n_reviews,
        count(distinct paper_id) as n_papers_reviewed

    from reviews
    group by all

),

aggregated as (

    select
        study_id,
        source,
        reviewer_config,
        judge_config,
        match_level,
        count(distinct repeat_index) as n_repeats,
        count(*) filter (where is_matched or n_answered = n_reviews) as n_paper_repeats_decided,
        count(*) filter (where is_matched) as n_paper_repeats_matched,
        cast(sum(n_null) as bigint) as n_null_judgments,
        cast(sum(n_reviews - n_answered - n_null) as bigint) as n_reviews_not_judged

    from verdicts
    group by all

),

final as (

    select
        concat_ws(
            '|', aggregated.study_id, aggregated.source, aggregated.reviewer_config, aggregated.judge_config,
            aggregated.match_level
        ) as withdrawal_detection_id,
        aggregated.study_id,
        aggregated.source,
        aggregated.reviewer_config,
        labels.reviewer_label,
        aggregated.judge_config,
        aggregated.match_level,
        withdrawn.n_papers,
        labels.n_papers_reviewed,
        labels.n_reviews,
        aggregated.n_repeats,
        aggregated.n_paper_repeats_decided,
        aggregated.n_paper_repeats_matched,
        aggregated.n_null_judgments,
        aggregated.n_reviews_not_judged,
        aggregated.n_paper_repeats_matched / aggregated.n_repeats as matched_count,
        case
            when aggregated.n_paper_repeats_decided > 0
                then aggregated.n_paper_repeats_matched / aggregated.n_paper_repeats_decided
        end as accuracy,
        aggregated.n_paper_repeats_matched / (withdrawn.n_papers * aggregated.n_repeats) as accuracy_of_all,
        case when aggregated.n_paper_repeats_decided = 0 then 'not_judged' end as accuracy_null_reason

    from aggregated
    inner join labels
        on
            aggregated.study_id = labels.study_id
            and aggregated.source = labels.source
            and aggregated.reviewer_config = labels.reviewer_config
    inner join withdrawn on aggregated.study_id = withdrawn.study_id

)

select * from final
