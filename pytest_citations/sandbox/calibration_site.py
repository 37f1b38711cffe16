"""The emulated web behind the judge-calibration set (``cases/calibration/``, 004 C5).

The team wrote these pages, and the human ``expect:`` labels of the calibration claims come
from reading them. ``install`` only serves the pages: it gives the judge emulator no rules, so
a calibration run measures the emulator's heuristic judge exactly as it is.
"""

from __future__ import annotations

from .crawlbase import CrawlbaseEmulator, FakePage
from .judges import JudgeEmulator

_LIBRARY_HOURS = """\
# Opening hours – Riverside Public Library

The Central Library on Mill Street is open Monday to Friday from 9:00 to 20:00 and on
Saturdays from 10:00 to 17:00. It is closed on Sundays and on public holidays.

The Northgate branch keeps shorter hours: Tuesday to Saturday from 10:00 to 16:00. It is
closed on Sundays and Mondays.

## Summer hours

From 1 July to 31 August the Central Library closes at 18:00 on weekdays. Saturday hours do
not change.

## Study rooms

Group study rooms on the second floor of the Central Library can be booked up to 7 days in
advance, for a maximum of 3 hours per day. Bookings are free for library card holders;
visitors without a card cannot book a room.

## Returning items

The book drop outside the main entrance is open 24 hours a day. Items returned after closing
time are checked in on the next opening day, so no late fee is charged for that night.

## Quiet floor

The third floor is a silent study area. Phone calls are not allowed there; please use the
lobby instead.

## Accessibility

Both buildings have step-free entrances. The Central Library has a lift to every floor and an
accessible toilet on the ground floor. Hearing loops are available at the main information
desk.
"""

_LIBRARY_BORROWING = """\
# Borrowing and fees

With a Riverside library card you can borrow up to 20 items at a time. Cards are free for
residents of the county; non-residents pay 25 dollars a year.

## Loan periods

Books can be borrowed for 3 weeks. DVDs and video games can be borrowed for 1 week. You can
renew an item twice, online or at the desk, unless another member has reserved it.

## Late fees

Late fees for adults are 20 cents per item per day, up to a maximum of 5 dollars per item.
Children's cards and teen cards have no late fees.

If an item is lost or damaged beyond repair, we charge the replacement cost plus a
processing fee of 3 dollars.

## Reservations

Reservations are free. When a reserved item is ready, we email you and keep it on the hold
shelf at your chosen branch for 7 days.

## Interlibrary loans

Books that no Riverside branch owns can be requested from other libraries in the state.
Interlibrary loans cost 2 dollars per request and usually arrive within two weeks.
"""

_RAIL_REFUNDS = """\
# Refunds for tickets

## Anytime tickets

Unused Anytime tickets can be refunded up to 28 days after the date of travel shown on the
ticket. We deduct an administration fee of 5 pounds from each refund.

## Advance tickets

Advance tickets are non-refundable. You can change the time of travel before the departure
of the booked train for a fee of 10 pounds plus any difference in fare.

## Season tickets

A season ticket can be refunded if at least 7 days of validity remain. The refund is
calculated from the date you return the ticket, not the date you stopped using it.

## Cancelled or delayed trains

If your train is cancelled or delayed by 60 minutes or more and you decide not to travel,
you get a full refund with no administration fee, whatever type of ticket you hold.

## How to claim

Refunds for tickets bought online are made to the original payment card, usually within 10
working days. Tickets bought at a station must be returned to a staffed ticket office.
Railcard discounts are not refunded separately.
"""

_RAIL_DELAYS = """\
# Delay Repay: compensation for late trains

If your train arrives at your destination late, you can claim compensation for the delay,
whatever type of ticket you hold. The amount depends on how late you arrived:

- 15 to 29 minutes late: 25% of the single fare
- 30 to 59 minutes late: 50% of the single fare
- 60 to 119 minutes late: 100% of the single fare
- 120 minutes or more late: 100% of the return fare

For a return ticket, the single fare is taken as half of the price of the return ticket.
Season ticket holders can claim for each delayed journey; the fare of one journey is worked
out from the price of the season ticket.

## How to claim

Claims must be made within 28 days of the journey, with a photo of the ticket or the booking
reference. We reply within 20 working days.

## What is not covered

Delays caused by planned engineering works that were announced when you bought the ticket,
and delays caused by strikes announced at least 48 hours in advance, are not covered.
Compensation is not paid for delays under 15 minutes.
"""

_BANANA_BREAD = """\
# Classic banana bread

Makes one 900 g loaf (about 10 slices). Preparation 15 minutes, baking 55 to 65 minutes.

## Ingredients

- 3 very ripe bananas (about 350 g peeled)
- 75 g melted butter
- 150 g light brown sugar
- 1 egg, beaten
- 1 teaspoon vanilla extract
- 1 teaspoon baking soda
- a pinch of salt
- 190 g plain flour

## Method

1. Heat the oven to 175 °C (155 °C fan) and line a loaf tin with baking paper.
2. Mash the bananas with a fork until smooth, then stir in the melted butter.
3. Mix in the sugar, egg and vanilla. Sprinkle the baking soda and salt over the mixture and
   stir.
4. Fold in the flour until just combined; do not overmix, or the bread will be tough.
5. Pour the batter into the tin and bake for 55 to 65 minutes, until a skewer inserted in the
   middle comes out clean. If the top browns too fast, cover it loosely with foil after 40
   minutes.
6. Leave to cool in the tin for 10 minutes, then turn out onto a rack.

## Storing

Wrapped tightly, the bread keeps for 3 days at room temperature or up to 3 months in the
freezer. For a nut version, fold in 60 g of chopped walnuts with the flour.
"""

_WARRANTY = """\
# BrewMaster warranty

Every BrewMaster espresso machine bought new from us or an authorised dealer comes with a
2-year limited warranty from the date of purchase. If you register the machine on our website
within 30 days of purchase, the warranty is extended to 3 years.

## What is covered

The warranty covers defects in materials and workmanship under normal household use. We
repair or replace the machine, at our choice, free of charge, including shipping within the
mainland.

## What is not covered

- machines used in offices, cafés or other commercial settings
- damage caused by limescale when the machine was not descaled as described in the manual
- wear parts such as gaskets, brush heads and water filters
- accidental damage, drops and liquid spilled on the control panel

## Making a claim

Contact support with your serial number and proof of purchase. We answer within 2 working
days. Repairs usually take 10 working days from the day the machine reaches our service
centre.

## Refurbished machines

Refurbished machines sold in our outlet carry a 1-year warranty that cannot be extended.
"""

_RECYCLING = """\
# Recycling in Eastbridge

## Collection days

Blue bins (paper and cardboard) are collected every other Monday. Yellow bins (plastic
packaging, cans and drink cartons) are collected every Thursday. Put bins at the kerb by
7:00 on collection day and bring them back in the same evening.

## What goes where

Flatten cardboard boxes before putting them in the blue bin. Pizza boxes are accepted only if
they are free of food. Shredded paper must be in a paper bag, not loose.

Rinse plastic containers and cans; they do not need to be spotless. Plastic bags and cling
film do not go in the yellow bin: take them to the collection points in supermarkets.

Glass bottles and jars go to the glass banks at 40 locations around the city, not in any bin.
Please use the glass banks only between 8:00 and 20:00 to avoid disturbing neighbours.

## Garden waste

Garden waste is collected from April to November for households that subscribe; the
subscription costs 45 euros a year. Outside that season, take garden waste to the recycling
centre on Quarry Road.

## Bulky items

Households can book two free bulky waste collections per year. Further collections cost 30
euros each.
"""

_VACCINATIONS = """\
# Vaccination clinic: schedule and appointments

The Harbour Health Centre runs vaccination clinics on Tuesdays and Thursdays from 8:30 to
12:00. Appointments are required; walk-ins are accepted only for the flu vaccine, from
October to December.

## Children

We follow the national schedule. Babies receive their first combined vaccine at 8 weeks,
with second and third doses at 12 and 16 weeks. The MMR vaccine is given at 1 year and again
at 3 years and 4 months.

## Adults

The flu vaccine is free for adults aged 65 and over, pregnant women and people with certain
long-term conditions. Other adults can get it for 15 euros. A tetanus booster is recommended
every 10 years.

## Travel vaccines

Travel vaccines need an appointment at least 6 weeks before departure, because some need more
than one dose. Travel vaccines are not covered by health insurance and are charged according
to our price list.

## Before your visit

Bring your vaccination record. If you have a fever above 38 °C on the day, call us to move
the appointment.
"""

_RELEASE_NOTES = """\
# Datatool 4.2 release notes

Released 14 March 2025.

## New features

- Parquet export: `datatool export --format parquet` writes Parquet files. Compression
  defaults to zstd.
- The query editor now autocompletes column names. Autocompletion is available only for
  tables with fewer than 500 columns.
- Scheduled jobs can send a notification to Slack or Microsoft Teams when they fail.

## Changes

- The minimum supported Python version is now 3.10. Python 3.9 is no longer supported.
- The default timeout for remote queries was raised from 30 to 120 seconds.
- The `--legacy-csv` flag is deprecated and will be removed in version 5.0.

## Fixes

- Exports to CSV no longer drop the last row when the file has no trailing newline.
- Fixed a memory leak in long-running scheduled jobs on Windows.

## Upgrading

Upgrade with `pip install --upgrade datatool`. Configuration files from 4.x are compatible.
Projects created with 3.x must be migrated with `datatool migrate` before the first run; the
migration cannot be undone, so back up the project first.
"""

LIBRARY_HOURS_URL = "https://library.example.org/hours"
LIBRARY_BORROWING_URL = "https://library.example.org/borrowing"
RAIL_REFUNDS_URL = "https://rail.example.com/help/refunds"
RAIL_DELAYS_URL = "https://rail.example.com/help/delay-repay"
BANANA_BREAD_URL = "https://recipes.example.net/banana-bread"
WARRANTY_URL = "https://brewmaster.example.com/support/warranty"
RECYCLING_URL = "https://eastbridge.example.org/waste/recycling"
VACCINATIONS_URL = "https://clinic.example.org/vaccinations"
RELEASE_NOTES_URL = "https://datatool.example.com/releases/4.2"

PAGES: dict[str, FakePage] = {
    LIBRARY_HOURS_URL: FakePage(markdown=_LIBRARY_HOURS),
    LIBRARY_BORROWING_URL: FakePage(markdown=_LIBRARY_BORROWING),
    RAIL_REFUNDS_URL: FakePage(markdown=_RAIL_REFUNDS),
    RAIL_DELAYS_URL: FakePage(markdown=_RAIL_DELAYS),
    BANANA_BREAD_URL: FakePage(markdown=_BANANA_BREAD),
    WARRANTY_URL: FakePage(markdown=_WARRANTY),
    RECYCLING_URL: FakePage(markdown=_RECYCLING),
    VACCINATIONS_URL: FakePage(markdown=_VACCINATIONS),
    RELEASE_NOTES_URL: FakePage(markdown=_RELEASE_NOTES),
}


def install(crawlbase: CrawlbaseEmulator, judge: JudgeEmulator) -> None:
    """Serve the calibration pages. The judge gets no rules: calibration measures its
    heuristic oracle as it is, so no verdict is forced to agree with the human labels."""
    del judge  # kept for the same signature as ``site.install``
    for url, page in PAGES.items():
        crawlbase.pages[url] = page
